"""What the Training Operator v1.9 derives from a PyTorchJob's spec for its pods.

defaulted: apis/kubeflow.org/v1/pytorch_defaults.go (SetDefaults_PyTorchJob, applied in memory by
Reconcile's Scheme.Default) with apis/defaulting_utils.go; pod_env: controller/pytorch/envvar.go
setPodEnv with master.go and elastic.go; init_container: controller/pytorch/initcontainer.go.
"""
import copy

CONTAINER, PORT_NAME, PORT = "pytorch", "pytorchjob-port", 23456  # PyTorchJob defaults
TYPES = ("Master", "Worker")


def defaulted(raw):
    """pytorch_defaults.go SetDefaults_PyTorchJob, applied in memory as Reconcile's Scheme.Default."""
    job = copy.deepcopy(raw)
    spec = job.setdefault("spec", {})
    spec.setdefault("runPolicy", {}).setdefault("cleanPodPolicy", "None")
    specs = spec.get("pytorchReplicaSpecs") or {}
    for t in TYPES:  # setPytorchTypeNamesToCamelCase
        for k in list(specs):
            if k.lower() == t.lower() and k != t:
                specs[t] = specs.pop(k)
    spec["pytorchReplicaSpecs"] = specs
    for rs in specs.values():
        if rs.get("replicas") is None:
            rs["replicas"] = 1
        rs["restartPolicy"] = rs.get("restartPolicy") or "OnFailure"
        containers = rs.setdefault("template", {}).setdefault("spec", {}).setdefault("containers", [])
        if containers:  # setPytorchDefaultPort: the container named pytorch, else containers[0]
            c = next((c for c in containers if c.get("name") == CONTAINER), containers[0])
            if not any(p.get("name") == PORT_NAME for p in c.get("ports") or []):
                c.setdefault("ports", []).append({"name": PORT_NAME, "containerPort": PORT})
    elastic = spec.get("elasticPolicy")
    if elastic is not None:  # setElasticPolicy
        lo, hi = elastic.get("minReplicas"), elastic.get("maxReplicas")
        if lo is None and hi is None:
            lo = hi = (specs.get("Worker") or {}).get("replicas")
        elastic["minReplicas"], elastic["maxReplicas"] = (lo if lo is not None else hi), (hi if hi is not None else lo)
    if elastic is None or elastic.get("nProcPerNode") is None:  # setDefaultNprocPerNode
        spec.setdefault("nprocPerNode", "auto")
    return job


def port_of(job, rtype):
    """envvar.go getPortFromPyTorchJob: the pytorchjob-port of container pytorch."""
    for c in job["spec"]["pytorchReplicaSpecs"][rtype]["template"]["spec"].get("containers", []):
        if c.get("name") == CONTAINER:
            for p in c.get("ports") or []:
                if p.get("name") == PORT_NAME:
                    return p["containerPort"]
    raise ValueError("port not found")


def pod_env(job, rt, index):
    """envvar.go setPodEnv (+ master.go, elastic.go): the env every container gets."""
    spec, name = job["spec"], job["metadata"]["name"]
    specs = spec["pytorchReplicaSpecs"]
    total = sum(int(r["replicas"]) for r in specs.values())
    nproc = spec.get("nprocPerNode")
    nproc_int = int(nproc) if nproc is not None and str(nproc).isdigit() else 1
    env = [{"name": "PYTHONUNBUFFERED", "value": "1"}]
    if "Master" in specs:
        port, addr = str(port_of(job, "Master")), f"{name}-master-0"
        rank = int(index) + (1 if rt == "worker" else 0)
        env += [{"name": "MASTER_PORT", "value": port}, {"name": "PET_MASTER_PORT", "value": port},
                {"name": "MASTER_ADDR", "value": addr}, {"name": "PET_MASTER_ADDR", "value": addr},
                {"name": "WORLD_SIZE", "value": str(total * nproc_int)},
                {"name": "RANK", "value": str(rank)}, {"name": "PET_NODE_RANK", "value": str(rank)}]
    if nproc is not None:
        env.append({"name": "PET_NPROC_PER_NODE", "value": str(nproc)})
    elastic = spec.get("elasticPolicy")
    if elastic is None:
        env.append({"name": "PET_NNODES", "value": str(total)})
        return env
    host = elastic.get("rdzvHost") or f"{name}-worker-0"
    port = elastic.get("rdzvPort") or port_of(job, "Worker")
    env += [{"name": "PET_RDZV_ENDPOINT", "value": f"{host}:{port}"},
            {"name": "PET_RDZV_BACKEND", "value": elastic.get("rdzvBackend") or "c10d"},
            {"name": "PET_NNODES", "value": f"{elastic['minReplicas']}:{elastic['maxReplicas']}"}]
    for key, var in (("maxRestarts", "PET_MAX_RESTARTS"), ("nProcPerNode", "PET_NPROC_PER_NODE"),
                     ("rdzvId", "PET_RDZV_ID")):
        if elastic.get(key) is not None:
            env.append({"name": var, "value": str(elastic[key])})
    if elastic.get("rdzvConf"):
        env.append({"name": "PET_RDZV_CONF", "value": ",".join(
            f"{c.get('key')}={c.get('value')}" for c in elastic["rdzvConf"])})
    if elastic.get("standalone"):
        env.append({"name": "PET_STANDALONE", "value": ""})
    return env


def init_container(job_name, namespace, image, max_tries, cluster_domain):
    """initcontainer.go's template: the worker waits until the master's name resolves.

    One knowing difference: {{.MasterAddr}} is written fully qualified
    (<job>-master-0.<ns>.svc.<cluster domain>). The operator's default image, alpine:3.10, has an
    nslookup that succeeds once the short name resolves through the search path; the e2e busybox
    (Debian's 1.35) also tries every other search domain and exits 1 on their NXDOMAIN, so with
    the short name the worker would never start. Both names resolve at the same moment.
    """
    master = f"{job_name}-master-0.{namespace}.svc.{cluster_domain}"
    return {"name": "init-pytorch", "image": image, "imagePullPolicy": "IfNotPresent",
            "resources": {"limits": {"cpu": "100m", "memory": "20Mi"},
                          "requests": {"cpu": "50m", "memory": "10Mi"}},
            "command": ["sh", "-c", f"err=1;for i in $(seq {max_tries}); do if nslookup {master}; "
                        "then err=0 && break; fi;echo waiting for master; sleep 2; done; exit $err"]}
