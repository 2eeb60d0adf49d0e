"""PyTorchJob stand-in: the Training Operator v1.9 PyTorchJob reconciler, rule by rule.

References (../shared/reference/training-operator-v1.9/controller/): pytorch/pytorchjob_controller.go
(Reconcile, UpdateJobStatus), pytorch/envvar.go, master.go, elastic.go, initcontainer.go,
common/job.go (ReconcileJobs), common/pod.go (ReconcilePods, createNewPod: pods one at a time in
index order, the first refusal ends the round), common/service.go;
and, from kubeflow/training-operator v1.9: pkg/util/status.go (conditions), pkg/core/{pod,job,
status}.go, pkg/util/train/train_util.go. Defaults, env and the init container: pytorchjob_spec.py.
"""
import copy
import json
import logging

from kube_api import ApiError, now, parse_time, record_event, warn_once
from pytorchjob_spec import CONTAINER, TYPES, defaulted, init_container, pod_env

GV, PLURAL, KIND = "kubeflow.org/v1", "pytorchjobs", "PyTorchJob"
CONTROLLER = "pytorchjob-controller"  # pytorchjob_controller.go controllerName
L_JOB, L_OPERATOR = "training.kubeflow.org/job-name", "training.kubeflow.org/operator-name"
L_TYPE, L_INDEX = "training.kubeflow.org/replica-type", "training.kubeflow.org/replica-index"
L_ROLE = "training.kubeflow.org/job-role"
log = logging.getLogger("standin.pytorchjob")


def cond_true(status, ctype):
    return any(c.get("type") == ctype and c.get("status") == "True"
               for c in status.get("conditions") or [])


def set_condition(status, ctype, cstatus, reason, message):
    """pkg/util/status.go UpdateJobConditions/setCondition/filterOutCondition. True if changed."""
    if cond_true(status, "Failed"):  # nothing changes once Failed
        return False
    conds = status.get("conditions") or []
    cur = next((c for c in conds if c.get("type") == ctype), None)
    if cur and cur.get("status") == cstatus and cur.get("reason") == reason:
        return False
    t = now()
    new = {"type": ctype, "status": cstatus, "reason": reason, "message": message,
           "lastUpdateTime": t, "lastTransitionTime": t}
    if cur and cur.get("status") == cstatus:
        new["lastTransitionTime"] = cur.get("lastTransitionTime")
    kept = []
    for c in conds:  # Running and Restarting replace each other; Succeeded/Failed turn Running False
        if c.get("type") == ctype or {ctype, c.get("type")} == {"Running", "Restarting"}:
            continue
        if ctype in ("Failed", "Succeeded") and c.get("type") == "Running":
            c = dict(c, status="False")
        kept.append(c)
    status["conditions"] = kept + [new]
    return True


class PyTorchJobReconciler:
    def __init__(self, client, init_image, max_tries=100, cluster_domain="cluster.local"):
        self.client, self.init_image, self.max_tries = client, init_image, max_tries
        self.cluster_domain = cluster_domain
        self.exit_seen, self.warned = set(), {}
        self.create_failed = {}  # (job uid, pod name) -> the message of its FailedCreatePod event

    def event(self, job, etype, reason, message):
        record_event(self.client, job, etype, reason, message, CONTROLLER)

    def reconcile_all(self):
        jobs = self.client.list(GV, PLURAL)
        sel = f"{L_OPERATOR}={CONTROLLER}"
        pods, services = self.client.list("v1", "pods", label_selector=sel), \
            self.client.list("v1", "services", label_selector=sel)
        for raw in jobs:
            meta = raw.get("metadata", {})
            key = (meta.get("namespace"), meta.get("name"))
            try:
                mine = [p for p in pods if (p["metadata"]["namespace"], p["metadata"]["labels"].get(L_JOB)) == key
                        and any(o.get("controller") and o.get("uid") == meta.get("uid")
                                for o in p["metadata"].get("ownerReferences") or [])]
                svcs = [s for s in services
                        if (s["metadata"]["namespace"], s["metadata"]["labels"].get(L_JOB)) == key]
                self.reconcile(raw, mine, svcs)
            except Exception as e:  # an odd object must not stop the loop
                warn_once(self.warned, key, "PyTorchJob %s/%s: %s" % (key[0], key[1], e))

    def reconcile(self, raw, pods, services):
        """pytorchjob_controller.go Reconcile + common/job.go ReconcileJobs."""
        if raw["metadata"].get("deletionTimestamp"):
            return  # deletion is the garbage collector's
        managed = ((raw.get("spec") or {}).get("runPolicy") or {}).get("managedBy")
        if managed and managed != "kubeflow.org/training-operator":
            return  # ManagedByExternalController
        job = defaulted(raw)
        name, specs, policy = job["metadata"]["name"], job["spec"]["pytorchReplicaSpecs"], job["spec"]["runPolicy"]
        status = copy.deepcopy(raw.get("status") or {})
        status.setdefault("replicaStatuses", {})
        # onOwnerCreateFunc: the Created condition
        set_condition(status, "Created", "True", "PyTorchJobCreated", f"PyTorchJob {name} is created.")
        if cond_true(status, "Succeeded") or cond_true(status, "Failed"):
            self.delete_pods_and_services(job, policy, status, pods)
            if cond_true(status, "Succeeded"):  # active replicas are counted as succeeded
                for rs in status["replicaStatuses"].values():
                    rs["succeeded"] = rs.get("succeeded", 0) + rs.get("active", 0)
                    rs["active"] = 0
            self.cleanup_job(job, policy, status)
            return self.write(raw, status)
        if policy.get("suspend"):  # IsJobSuspended: delete everything, condition Suspended
            self.delete_pods_and_services(job, policy, status, pods)
            for rs in status["replicaStatuses"].values():
                rs["active"] = 0
            msg = f"PyTorchJob {name} is suspended."
            if cond_true(status, "Running"):
                set_condition(status, "Running", "False", "PyTorchJobSuspended", msg)
            if not cond_true(status, "Suspended"):
                set_condition(status, "Suspended", "True", "PyTorchJobSuspended", msg)
                self.event(job, "Normal", "PyTorchJobSuspended", msg)
            return self.write(raw, status)
        if cond_true(status, "Suspended"):
            msg = f"PyTorchJob {name} is resumed."
            set_condition(status, "Suspended", "False", "PyTorchJobResumed", msg)
            status["startTime"] = now()
            self.event(job, "Normal", "PyTorchJobResumed", msg)
        active = sum(1 for p in pods if phase(p) not in ("Succeeded", "Failed")
                     and not p["metadata"].get("deletionTimestamp"))
        failed = sum(1 for p in pods if phase(p) == "Failed")
        total = sum(int(r["replicas"]) for r in specs.values())
        prev_failed = sum(rs.get("failed", 0) for rs in status["replicaStatuses"].values())
        message, limit = None, policy.get("backoffLimit")
        if limit is not None:  # previousRetry is 0: the reconciler's WorkQueue is a FakeWorkQueue
            exceeds = failed > prev_failed and active != total and 1 > limit
            if exceeds or past_backoff_limit(specs, pods, limit):
                message = f"Job {name} has failed because it has reached the specified backoff limit"
        deadline, start = policy.get("activeDeadlineSeconds"), parse_time(status.get("startTime"))
        if not message and deadline is not None and start is not None and now_s() - start >= deadline:
            message = f"Job {name} has failed because it was active longer than specified deadline"
        if message:
            status.setdefault("completionTime", now())
            self.event(job, "Normal", "PyTorchJobFailed", message)
            set_condition(status, "Failed", "True", "PyTorchJobFailed", message)
            self.delete_pods_and_services(job, policy, status, pods)  # finished: cleanPodPolicy applies
            self.cleanup_job(job, policy, status)
            return self.write(raw, status)
        for rtype in [t for t in TYPES if t in specs] + sorted(set(specs) - set(TYPES)):
            self.reconcile_pods(job, status, pods, rtype, specs)
            self.reconcile_services(job, services, rtype, specs[rtype])
        self.update_job_status(job, specs, status)
        self.write(raw, status)

    def write(self, raw, status):
        """UpdateJobStatusInApiServer: Status().Update, only when the status changed."""
        status = {k: v for k, v in status.items() if v is not None}
        for rs in status.get("replicaStatuses", {}).values():  # omitempty counts
            for k in ("active", "succeeded", "failed"):
                if not rs.get(k):
                    rs.pop(k, None)
        if status == (raw.get("status") or {}):
            return
        obj = dict(raw, status=status)
        if self.client.update_status(GV, PLURAL, obj) is None:
            log.info("PyTorchJob %s: status conflict, retrying next round", raw["metadata"]["name"])

    def delete_pods_and_services(self, job, policy, status, pods):
        """common/job.go DeletePodsAndServices: cleanPodPolicy once finished (default None)."""
        finished = cond_true(status, "Succeeded") or cond_true(status, "Failed")
        clean = policy.get("cleanPodPolicy")
        if finished and clean == "None":
            return
        for pod in pods:
            if finished and clean == "Running" and phase(pod) not in ("Running", "Pending"):
                continue
            self.delete(job, "pods", pod["metadata"]["name"], "Pod")
            self.delete(job, "services", pod["metadata"]["name"], "Service")

    def delete(self, job, plural, name, kind):
        if self.client.delete("v1", plural, job["metadata"]["namespace"], name) is not None:
            self.event(job, "Normal", f"SuccessfulDelete{kind}", f"Deleted {kind.lower()}: {name}")

    def cleanup_job(self, job, policy, status):
        """common/job.go CleanupJob: ttlSecondsAfterFinished deletes the job."""
        ttl, done = policy.get("ttlSecondsAfterFinished"), parse_time(status.get("completionTime"))
        if ttl is not None and not policy.get("suspend") and done is not None and now_s() > done + ttl:
            self.client.delete(GV, PLURAL, job["metadata"]["namespace"], job["metadata"]["name"])

    def reconcile_pods(self, job, status, pods, rtype, specs):
        """common/pod.go ReconcilePods: one pod per index; restart policies; replica counts."""
        spec, rt, name = specs[rtype], rtype.lower(), job["metadata"]["name"]
        mine = [p for p in pods if p["metadata"]["labels"].get(L_TYPE) == rt]
        status["replicaStatuses"][rtype] = {}  # initializeReplicaStatuses
        replicas = int(spec["replicas"])
        slices = {}
        for p in mine:
            idx = p["metadata"]["labels"].get(L_INDEX, "")
            if idx.lstrip("-").isdigit():
                slices.setdefault(int(idx), []).append(p)
        for index in range(max([replicas] + [i + 1 for i in slices])):
            group = slices.get(index, [])
            if len(group) > 1:
                log.warning("PyTorchJob %s: too many pods for %s %d", name, rt, index)
            elif not group:
                if index < replicas:
                    self.create_pod(job, rt, index, spec, specs)
            else:
                pod = group[0]
                if index >= replicas:
                    self.delete(job, "pods", pod["metadata"]["name"], "Pod")
                exit_code = 0xbeef
                for cs in pod.get("status", {}).get("containerStatuses") or []:
                    term = (cs.get("state") or {}).get("terminated")
                    if cs.get("name") == CONTAINER and term:
                        exit_code = term.get("exitCode", 0)
                        if pod["metadata"]["uid"] not in self.exit_seen:
                            self.exit_seen.add(pod["metadata"]["uid"])
                            self.event(job, "Normal", "ExitedWithCode", f"Pod: {pod['metadata']['namespace']}."
                                       f"{pod['metadata']['name']} exited with code {exit_code}")
                policy = spec["restartPolicy"]
                if phase(pod) == "Failed":
                    if policy in ("OnFailure", "Always") or (policy == "ExitCode" and exit_code >= 128):
                        # IsRetryableExitCode: >= 128; the pod is deleted, then recreated
                        self.delete(job, "pods", pod["metadata"]["name"], "Pod")
                        msg = f"job {name} is restarting because {rtype} replica(s) failed."
                        if set_condition(status, "Restarting", "True", "PyTorchJobRestarting", msg):
                            self.event(job, "Warning", "PyTorchJobRestarting", msg)
                    elif policy == "ExitCode":
                        msg = f'job "{name}" is failing because "{rtype}" replica(s) failed.'
                        if set_condition(status, "Failed", "True", "PyTorchJobFailed", msg):
                            self.event(job, "Warning", "PyTorchJobFailed", msg)
                counts = status["replicaStatuses"][rtype]  # core/status.go UpdateJobReplicaStatuses
                if phase(pod) == "Running":
                    key = "failed" if pod["metadata"].get("deletionTimestamp") else "active"
                    counts[key] = counts.get(key, 0) + 1
                elif phase(pod) in ("Succeeded", "Failed"):
                    key = phase(pod).lower()
                    counts[key] = counts.get(key, 0) + 1

    def create_pod(self, job, rt, index, spec, specs):
        """common/pod.go createNewPod + SetClusterSpec (envvar.go, initcontainer.go)."""
        name, ns = job["metadata"]["name"], job["metadata"]["namespace"]
        labels = {L_OPERATOR: CONTROLLER, L_JOB: name.replace("/", "-"), L_TYPE: rt, L_INDEX: str(index)}
        if rt == "master" or ("Master" not in specs and rt == "worker" and index == 0):
            labels[L_ROLE] = "master"  # IsMasterRole
        template = copy.deepcopy(spec.get("template") or {})
        pod_spec, meta = template.get("spec") or {}, template.get("metadata") or {}
        env = pod_env(job, rt, str(index))
        for c in pod_spec.get("containers") or []:
            c["env"] = (c.get("env") or []) + env
        if "Master" in specs and rt == "worker":  # initcontainer.go: wait for the master's DNS name
            pod_spec["initContainers"] = (pod_spec.get("initContainers") or []) + [
                init_container(name, ns, self.init_image, self.max_tries, self.cluster_domain)]
        if pod_spec.get("restartPolicy"):
            self.event(job, "Warning", "SettedPodTemplateRestartPolicy",
                       "Restart policy in pod template will be overwritten by restart policy in replica spec")
        policy = spec["restartPolicy"]  # core/pod.go SetRestartPolicy: ExitCode runs as Never
        pod_spec["restartPolicy"] = "Never" if policy == "ExitCode" else policy
        pod = {"apiVersion": "v1", "kind": "Pod", "spec": pod_spec, "metadata": {
            "name": f"{name}-{rt}-{index}".replace("/", "-"), "namespace": ns,
            "labels": {**(meta.get("labels") or {}), **labels},
            "annotations": meta.get("annotations") or {}, "finalizers": meta.get("finalizers") or [],
            "ownerReferences": [owner_ref(job)]}}
        key = (job["metadata"].get("uid"), pod["metadata"]["name"])
        try:
            created = self.client.create("v1", "pods", ns, pod)
        except ApiError as e:
            # control/pod_control.go CreatePodsWithControllerRef: a refused pod (HTTP 403, the
            # quota admission's "exceeded quota") is a Warning event "Error creating: <the API
            # server's error>", and the error ends ReconcilePods: no later pod is tried and the
            # status is not written; the next round tries again (the operator requeues). Once per
            # pod and message: client-go's recorder folds repeats into one event's count.
            message = "Error creating: " + api_message(e)
            if self.create_failed.get(key) != message:
                self.create_failed[key] = message
                self.event(job, "Warning", "FailedCreatePod", message)
            raise
        self.create_failed.pop(key, None)
        if created is not None:
            self.event(job, "Normal", "SuccessfulCreatePod", f"Created pod: {pod['metadata']['name']}")

    def reconcile_services(self, job, services, rtype, spec):
        """common/service.go ReconcileServices/CreateNewService: a headless Service per replica."""
        rt, name, ns = rtype.lower(), job["metadata"]["name"], job["metadata"]["namespace"]
        have = {s["metadata"]["labels"].get(L_INDEX) for s in services
                if s["metadata"]["labels"].get(L_TYPE) == rt}
        replicas = int(spec["replicas"])
        for s in services:
            idx = s["metadata"]["labels"].get(L_INDEX, "")
            if s["metadata"]["labels"].get(L_TYPE) == rt and idx.isdigit() and int(idx) >= replicas:
                self.delete(job, "services", s["metadata"]["name"], "Service")
        container = next((c for c in spec["template"]["spec"].get("containers") or []
                          if c.get("name") == CONTAINER), None)
        if container is None:
            raise ValueError("failed to find the port")  # core.GetPortsFromJob
        for index in range(replicas):
            if str(index) in have:
                continue
            labels = {L_OPERATOR: CONTROLLER, L_JOB: name.replace("/", "-"), L_TYPE: rt, L_INDEX: str(index)}
            svc = {"apiVersion": "v1", "kind": "Service", "metadata": {
                "name": f"{name}-{rt}-{index}".replace("/", "-"), "namespace": ns, "labels": labels,
                "ownerReferences": [owner_ref(job)]}, "spec": {"clusterIP": "None", "selector": labels,
                "ports": [{"name": p.get("name"), "port": p["containerPort"]}
                          for p in container.get("ports") or []]}}
            if self.client.create("v1", "services", ns, svc) is not None:
                self.event(job, "Normal", "SuccessfulCreateService", f"Created service: {svc['metadata']['name']}")

    def update_job_status(self, job, specs, status):
        """pytorchjob_controller.go UpdateJobStatus: Running, Succeeded, Restarting, Failed."""
        name, ns = job["metadata"]["name"], job["metadata"]["namespace"]
        status.setdefault("startTime", now())
        for rtype in [t for t in TYPES if t in specs] + sorted(set(specs) - set(TYPES)):
            spec = specs[rtype]
            rs = status["replicaStatuses"].setdefault(rtype, {})
            rs["selector"] = ",".join(f"{k}={v}" for k, v in sorted(
                {L_OPERATOR: CONTROLLER, L_JOB: name, L_TYPE: rtype.lower()}.items()))
            succeeded, running, failed = rs.get("succeeded", 0), rs.get("active", 0), rs.get("failed", 0)
            replicas = int(spec["replicas"])
            expected = replicas - succeeded
            done = None
            if "Master" in specs:
                if rtype == "Master":
                    if running > 0:
                        set_condition(status, "Running", "True", "PyTorchJobRunning", f"PyTorchJob {name} is running.")
                    if expected == 0:
                        done = f"PyTorchJob {name} is successfully completed."
            elif rtype == "Worker":
                if expected == 0 or (job["spec"].get("elasticPolicy") is not None and succeeded > 0):
                    done = f"PyTorchJob {ns}/{name} successfully completed."
                elif running > 0:
                    set_condition(status, "Running", "True", "PyTorchJobRunning", f"PyTorchJob {ns}/{name} is running.")
            if done:
                status.setdefault("completionTime", now())
                if set_condition(status, "Succeeded", "True", "PyTorchJobSucceeded", done):
                    self.event(job, "Normal", "PyTorchJobSucceeded", done)
                if "Master" in specs:
                    return  # the master succeeded: the job is finished
            if failed > 0 and replicas > succeeded + running:
                if spec["restartPolicy"] != "Never":
                    msg = f"PyTorchJob {name} is restarting because {failed} {rtype} replica(s) failed."
                    if set_condition(status, "Restarting", "True", "PyTorchJobRestarting", msg):
                        self.event(job, "Warning", "PyTorchJobRestarting", msg)
                else:
                    msg = f"PyTorchJob {name} is failed because {failed} {rtype} replica(s) failed."
                    status.setdefault("completionTime", now())
                    if set_condition(status, "Failed", "True", "PyTorchJobFailed", msg):
                        self.event(job, "Normal", "PyTorchJobFailed", msg)


def past_backoff_limit(specs, pods, limit):
    """core/job.go PastBackoffLimit: restarts of Running pods under OnFailure/Always/ExitCode."""
    total = 0
    for rtype, spec in specs.items():
        if spec["restartPolicy"] not in ("OnFailure", "Always", "ExitCode"):
            continue
        for p in pods:
            if p["metadata"]["labels"].get(L_TYPE) == rtype.lower() and phase(p) == "Running":
                st = p.get("status", {})
                total += sum(c.get("restartCount", 0) for c in
                             (st.get("initContainerStatuses") or []) + (st.get("containerStatuses") or []))
    return total > 0 if limit == 0 else total >= limit


def api_message(error):
    """The message of the API server's Status in an error's body (what client-go's StatusError
    says), else the body itself."""
    try:
        body = json.loads(error.body)
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"]:
        return body["message"]
    return error.body[:1000]


def phase(pod):
    return (pod.get("status") or {}).get("phase", "")


def now_s():
    return parse_time(now())


def owner_ref(job):
    """GenOwnerReference: controller and blockOwnerDeletion."""
    return {"apiVersion": GV, "kind": KIND, "name": job["metadata"]["name"], "uid": job["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True}
