"""TrainJob stand-in: Kubeflow Trainer v2.3's TrainJob controller, the JobSet controller and the
Job controller folded into one reconciler that makes the node pods and the headless Service.

References (../shared/reference/trainer-v2.3.0/): runtimes/plugins/jobset/{jobset.go,builder.go}
(JobSet build, IdentifyPodNetwork, Status), runtimes/plugins/torch/torch.go (PET_* env, port),
runtimes/constants.go, FACTS.md, doc-trainjob-lifecycle.md, trainer.kubeflow.org_trainjobs.yaml;
JobSet (kubernetes-sigs/jobset) jobset_controller.go for labels, the Service, replicatedJobsStatus
and the Completed/Failed conditions; Kubernetes' Job controller for Indexed pods and backoffLimit.
Structural difference: pods and the Service are owned by the TrainJob directly (really
Pod -> Job -> JobSet -> TrainJob); no JobSet or Job objects exist.
"""
import copy
import hashlib
import logging
import random

from kube_api import now, parse_time, record_event, warn_once

GV, PLURAL, KIND = "trainer.kubeflow.org/v1alpha1", "trainjobs", "TrainJob"
MANAGER = "trainer.kubeflow.org/trainjob-controller"  # spec.managedBy default (CRD)
JS = "jobset.sigs.k8s.io/"
L_ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
INDEX = "batch.kubernetes.io/job-completion-index"
PORT = 29500  # constants.go ContainerTrainerPort
BACKOFF_LIMIT = 6  # batch/v1 Job default: no runtime sets one
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery rand.String, as in generateName
log = logging.getLogger("standin.trainjob")


def set_condition(status, ctype, cstatus, reason, message):
    """apimachinery meta.SetStatusCondition: transition time moves only when status changes."""
    conds = status.setdefault("conditions", [])
    cur = next((c for c in conds if c.get("type") == ctype), None)
    if cur is None:
        conds.append({"type": ctype, "status": cstatus, "reason": reason, "message": message,
                      "lastTransitionTime": now()})
        return True
    changed = (cur.get("status"), cur.get("reason"), cur.get("message")) != (cstatus, reason, message)
    if cur.get("status") != cstatus:
        cur["lastTransitionTime"] = now()
    cur.update(status=cstatus, reason=reason, message=message)
    return changed


def cond_true(status, ctype):
    return any(c.get("type") == ctype and c.get("status") == "True" for c in status.get("conditions") or [])


def merge(base, patch):
    """Server-side-apply-like merge of a runtimePatches fragment: maps merge, named lists upsert."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for k, v in patch.items():
            out[k] = merge(base.get(k), v) if k in base else copy.deepcopy(v)
        return out
    if isinstance(base, list) and isinstance(patch, list) and all(isinstance(p, dict) and "name" in p for p in patch):
        out = [copy.deepcopy(b) for b in base]
        for p in patch:
            i = next((i for i, b in enumerate(out) if isinstance(b, dict) and b.get("name") == p["name"]), None)
            out.append(copy.deepcopy(p)) if i is None else out.__setitem__(i, merge(out[i], p))
        return out
    if isinstance(base, list) and isinstance(patch, list):
        return base + [p for p in patch if p not in base]  # tolerations and other unnamed lists
    return copy.deepcopy(patch)


def upsert(items, entry, key):
    """apply.UpsertEnvVars / UpsertPort: replace in place, else append."""
    for i, item in enumerate(items):
        if item.get(key) == entry.get(key):
            items[i] = entry
            return
    items.append(entry)


def cpu_ceil(quantity):
    """resource.Quantity.Value() of a CPU quantity: rounded up to a whole number."""
    text = str(quantity or "0")
    scale = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9}.get(text[-1:], 1)
    number = float(text[:-1] if text[-1:] in "mkMG" else text)
    whole = number * scale
    return int(whole) + (1 if whole > int(whole) else 0)


class TrainJobReconciler:
    def __init__(self, client):
        self.client = client
        self.warned = {}

    def reconcile_all(self):
        jobs = self.client.list(GV, PLURAL)
        if not jobs:
            return
        pods = self.client.list("v1", "pods", label_selector=JS + "jobset-name")
        cluster_runtimes = {r["metadata"]["name"]: r for r in self.client.list(GV, "clustertrainingruntimes")}
        for tj in jobs:
            meta = tj.get("metadata", {})
            try:
                mine = [p for p in pods if p["metadata"]["namespace"] == meta.get("namespace")
                        and any(o.get("controller") and o.get("uid") == meta.get("uid")
                                for o in p["metadata"].get("ownerReferences") or [])]
                self.reconcile(tj, mine, cluster_runtimes)
            except Exception as e:  # an odd object must not stop the loop
                warn_once(self.warned, (meta.get("namespace"), meta.get("name")),
                          "TrainJob %s/%s: %s" % (meta.get("namespace"), meta.get("name"), e))

    def runtime_of(self, tj, cluster_runtimes):
        ref = tj["spec"].get("runtimeRef") or {}
        if ref.get("kind", "ClusterTrainingRuntime") == "ClusterTrainingRuntime":
            return cluster_runtimes.get(ref.get("name"))
        return self.client.get(GV, "trainingruntimes", tj["metadata"]["namespace"], ref.get("name"))

    def reconcile(self, tj, pods, cluster_runtimes):
        meta, spec = tj["metadata"], tj.get("spec") or {}
        name, ns = meta["name"], meta["namespace"]
        if meta.get("deletionTimestamp") or spec.get("managedBy", MANAGER) != MANAGER:
            return  # deletion is the garbage collector's; other managers (MultiKueue) are skipped
        status = copy.deepcopy(tj.get("status") or {})
        finished = cond_true(status, "Complete") or cond_true(status, "Failed")
        if finished:  # the JobSet is finished: its active Jobs are deleted (jobset_controller.go)
            return self.delete_pods(tj, [p for p in pods if active(p)])
        runtime = self.runtime_of(tj, cluster_runtimes)
        if runtime is None:
            return warn_once(self.warned, (ns, name), f"TrainJob {ns}/{name}: runtime {spec.get('runtimeRef')} not found")
        suspended = bool(spec.get("suspend"))
        # trainjob_controller.go setSuspendedCondition (constants.go messages)
        if suspended:
            set_condition(status, "Suspended", "True", "Suspended", "TrainJob is suspended")
        elif cond_true(status, "Suspended"):
            set_condition(status, "Suspended", "False", "Resumed", "TrainJob is resumed")
        # activeDeadlineSeconds (doc-trainjob-lifecycle.md): from creation, or from the last resume
        deadline = spec.get("activeDeadlineSeconds")
        resumed = next((c["lastTransitionTime"] for c in status.get("conditions") or []
                        if c.get("type") == "Suspended" and c.get("reason") == "Resumed"), None)
        start = parse_time(resumed or meta.get("creationTimestamp"))
        if deadline and not suspended and start and parse_time(now()) - start >= deadline:
            set_condition(status, "Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline")
            self.delete_pods(tj, pods)  # the JobSet is deleted with everything under it
            self.client.delete("v1", "services", ns, name)
            return self.write(tj, status)
        template = copy.deepcopy(runtime["spec"].get("template") or {})
        for patch in spec.get("runtimePatches") or []:  # v2.2+ runtimePatches
            template = merge(template, ((patch.get("trainingRuntimeSpec") or {}).get("template") or {}))
        js_spec = template.get("spec") or {}
        subdomain = (js_spec.get("network") or {}).get("subdomain") or name  # IdentifyPodNetwork
        # JobSet createHeadlessSvcIfNecessary: clusterIP None, publishNotReadyAddresses, jobset-name
        svc = {"apiVersion": "v1", "kind": "Service", "metadata": {
            "name": subdomain, "namespace": ns, "ownerReferences": [owner_ref(tj)]}, "spec": {
            "clusterIP": "None", "selector": {JS + "jobset-name": name}, "publishNotReadyAddresses":
                (js_spec.get("network") or {}).get("publishNotReadyAddresses", True)}}
        if self.client.create("v1", "services", ns, svc) is not None:
            record_event(self.client, tj, "Normal", "SuccessfulCreateService", f"Created service: {subdomain}",
                         "jobset")
        jobs_status, failed_job, all_complete = [], None, True
        reached = {}
        for rj in js_spec.get("replicatedJobs") or []:
            counts = dict(name=rj["name"], ready=0, succeeded=0, failed=0, active=0, suspended=0)
            blocked = any(reached.get(d.get("name"), {}).get(d.get("status", "Complete")) is False
                          for d in rj.get("dependsOn") or [])
            for job_idx in range(int(rj.get("replicas", 1)) if not blocked else 0):  # dependsOn
                state = self.reconcile_job(tj, runtime, rj, job_idx, subdomain, pods, suspended)
                if state["failed"]:
                    counts["failed"] += 1
                    failed_job = failed_job or state["name"]
                elif state["complete"]:
                    counts["succeeded"] += 1
                else:
                    counts["ready"] += state["ready"]
                    counts["active"] += state["active"] > 0
                    counts["suspended"] += suspended
            all_complete = all_complete and counts["succeeded"] == int(rj.get("replicas", 1))
            reached[rj["name"]] = {"Complete": counts["succeeded"] == int(rj.get("replicas", 1)),
                                   "Ready": counts["ready"] + counts["succeeded"] == int(rj.get("replicas", 1))}
            jobs_status.append(counts)
        status["jobsStatus"] = jobs_status
        # jobset.go Status: the JobSet's terminal conditions copied as Failed / Complete
        if failed_job:
            set_condition(status, "Failed", "True", "FailedJobs",
                          f"jobset failed due to one or more job failures (first failed job: {failed_job})")
            self.delete_pods(tj, [p for p in pods if active(p)])
        elif all_complete and jobs_status:
            set_condition(status, "Complete", "True", "AllJobsCompleted", "jobset completed successfully")
        self.write(tj, status)

    def reconcile_job(self, tj, runtime, rj, job_idx, subdomain, pods, suspended):
        """The Job controller for one Indexed Job <trainjob>-<replicatedJob>-<jobIdx>."""
        name = tj["metadata"]["name"]
        job_name = f"{name}-{rj['name']}-{job_idx}"
        job_tpl = rj.get("template") or {}
        job_spec = job_tpl.get("spec") or {}
        trainer_step = ((job_tpl.get("metadata") or {}).get("labels") or {}).get(L_ANCESTOR) == "trainer"
        count = int(job_spec.get("parallelism", 1))
        if trainer_step:  # torch.go EnforceMLPolicy / SyncParallelCount: numNodes
            count = int((tj["spec"].get("trainer") or {}).get("numNodes")
                        or (runtime["spec"].get("mlPolicy") or {}).get("numNodes") or 1)
        mine = [p for p in pods if p["metadata"]["labels"].get("job-name") == job_name]
        restart = ((job_spec.get("template") or {}).get("spec") or {}).get("restartPolicy") or "OnFailure"
        limit = job_spec.get("backoffLimit", BACKOFF_LIMIT)
        done = {p["metadata"]["labels"].get(INDEX) for p in mine if phase(p) == "Succeeded"}
        live = [p for p in mine if active(p)]
        state = {"name": job_name, "complete": all(str(i) in done for i in range(count)),
                 "ready": 0, "active": len(live), "failed": False}
        if state["complete"]:
            return state
        if restart == "Never":  # Job controller: failed pods past backoffLimit
            state["failed"] = sum(1 for p in mine if phase(p) == "Failed") > limit
        else:  # pastBackoffLimitOnFailure: restarts of Running/Pending pods
            restarts = sum(c.get("restartCount", 0) for p in mine if phase(p) in ("Running", "Pending")
                           for c in (p.get("status", {}).get("containerStatuses") or [])
                           + (p.get("status", {}).get("initContainerStatuses") or []))
            state["failed"] = restarts > 0 if limit == 0 else restarts >= limit
        if state["failed"] or suspended:  # a failed or suspended Job deletes its active pods
            self.delete_pods(tj, live)
            state["active"] = 0
            return state
        ready = sum(1 for p in live if any(c.get("type") == "Ready" and c.get("status") == "True"
                                           for c in p.get("status", {}).get("conditions") or []))
        state["ready"] = int(len(done) + ready >= count)  # calculateReplicatedJobStatuses
        for index in range(count):
            if str(index) in done or any(p["metadata"]["labels"].get(INDEX) == str(index) for p in live):
                continue
            pod = self.build_pod(tj, runtime, rj, job_idx, index, count, subdomain, trainer_step)
            if self.client.create("v1", "pods", tj["metadata"]["namespace"], pod) is not None:
                state["active"] += 1
                record_event(self.client, tj, "Normal", "SuccessfulCreate",
                             f"Created pod: {pod['metadata']['name']}", "job-controller")
        return state

    def build_pod(self, tj, runtime, rj, job_idx, index, count, subdomain, trainer_step):
        """The pod the Job controller makes from the JobSet's Job template."""
        name, ns = tj["metadata"]["name"], tj["metadata"]["namespace"]
        job_name = f"{name}-{rj['name']}-{job_idx}"
        tpl = copy.deepcopy(((rj.get("template") or {}).get("spec") or {}).get("template") or {})
        pod_spec, tpl_meta = tpl.get("spec") or {}, tpl.get("metadata") or {}
        trainer = tj["spec"].get("trainer") or {}
        torch = (runtime["spec"].get("mlPolicy") or {}).get("torch") is not None
        for c in pod_spec.get("containers") or []:
            if c.get("name") != "node" or not trainer_step:
                continue
            for field in ("image", "command", "args"):  # builder.go Trainer
                if trainer.get(field) is not None:
                    c[field] = trainer[field]
            resources = trainer.get("resourcesPerNode") or c.get("resources") or {}
            if trainer.get("resourcesPerNode") is not None:
                c["resources"] = trainer["resourcesPerNode"]
            env = c.setdefault("env", [])
            for e in trainer.get("env") or []:
                upsert(env, e, "name")
            if torch:  # torch.go EnforceMLPolicy: PET_* and the trainer port
                gpus = sum(int(v) for k, v in (resources.get("limits") or {}).items() if k.endswith("/gpu"))
                nproc = trainer.get("numProcPerNode")
                nproc = str(nproc) if nproc is not None else "auto"
                if nproc == "auto" and gpus == 0:
                    cpu = (resources.get("requests") or {}).get("cpu") or (resources.get("limits") or {}).get("cpu")
                    nproc = str(max(1, cpu_ceil(cpu)))
                for e in ({"name": "PET_NNODES", "value": str(count)},
                          {"name": "PET_NPROC_PER_NODE", "value": nproc},
                          {"name": "PET_NODE_RANK", "valueFrom": {"fieldRef": {
                              "fieldPath": f"metadata.annotations['{INDEX}']"}}},
                          {"name": "PET_MASTER_ADDR", "value": f"{name}-node-0-0.{name}"},
                          {"name": "PET_MASTER_PORT", "value": str(PORT)}):
                    upsert(env, e, "name")
                upsert(c.setdefault("ports", []), {"containerPort": PORT}, "containerPort")
        for c in (pod_spec.get("containers") or []) + (pod_spec.get("initContainers") or []):
            env = c.setdefault("env", [])  # the Job controller's JOB_COMPLETION_INDEX
            if not any(e.get("name") == "JOB_COMPLETION_INDEX" for e in env):
                env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                    "fieldPath": f"metadata.annotations['{INDEX}']"}}})
        pod_spec["restartPolicy"] = pod_spec.get("restartPolicy") or "OnFailure"  # JobSet webhook default
        pod_spec["hostname"], pod_spec["subdomain"] = f"{job_name}-{index}", subdomain
        js_labels = {JS + "jobset-name": name, JS + "replicatedjob-name": rj["name"],
                     JS + "replicatedjob-replicas": str(rj.get("replicas", 1)), JS + "job-index": str(job_idx),
                     JS + "job-global-index": str(job_idx), JS + "restart-attempt": "0",
                     JS + "job-key": hashlib.sha1(f"{ns}/{job_name}".encode()).hexdigest()}
        labels = {**(tpl_meta.get("labels") or {}), **js_labels, "job-name": job_name,
                  "batch.kubernetes.io/job-name": job_name, INDEX: str(index)}
        annotations = {**(tpl_meta.get("annotations") or {}), **js_labels, INDEX: str(index)}
        suffix = "".join(random.choice(ALPHABET) for _ in range(5))
        return {"apiVersion": "v1", "kind": "Pod", "spec": pod_spec, "metadata": {
            "name": f"{job_name}-{index}-{suffix}", "namespace": ns, "labels": labels,
            "annotations": annotations, "ownerReferences": [owner_ref(tj)]}}

    def delete_pods(self, tj, pods):
        for p in pods:
            if not p["metadata"].get("deletionTimestamp"):
                self.client.delete("v1", "pods", p["metadata"]["namespace"], p["metadata"]["name"])

    def write(self, tj, status):
        if status == (tj.get("status") or {}) or not status:
            return
        if self.client.update_status(GV, PLURAL, dict(tj, status=status)) is None:
            log.info("TrainJob %s: status conflict, retrying next round", tj["metadata"]["name"])


def phase(pod):
    return (pod.get("status") or {}).get("phase", "")


def active(pod):
    return phase(pod) not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


def owner_ref(tj):
    return {"apiVersion": GV, "kind": KIND, "name": tj["metadata"]["name"], "uid": tj["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True}
