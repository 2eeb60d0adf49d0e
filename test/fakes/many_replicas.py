#!/usr/bin/python3 -S
"""Write a scenario for the fake kubectl: a running PyTorchJob of 1 Master and N Workers.

    many_replicas.py DIR WORKERS [--failed I] [--restarting I] [--pending I] [--lines N]
                     [--ends]

DIR gets job.json, pods.json and scenario.json (KFTRAIN_FAKE_SCENARIO=DIR/scenario.json). The
pods carry the Training Operator v1.9's labels and each has a log of N lines (default 3), the
master's first a trainer progress line. --failed, --restarting and --pending (each may repeat)
make worker I's pod fail with exit code 1, crash-loop with 3 restarts, or wait unscheduled.
With --ends the job reads Running to its first get by name and Succeeded from the second on.
Used by the tests of large jobs and by bench/many_replicas.sh.
"""
import argparse
import json
import os

JOB = "big"
NAMESPACE = "ml-training"
LABEL = "training.kubeflow.org/"


def container_spec():
    return {"name": "pytorch", "image": "registry.example.com/ml/kftrain-trainer:0.1.0",
            "command": ["kftrain-trainer"], "args": ["--model", "mnist_cnn"],
            "resources": {"requests": {"cpu": "2", "memory": "4Gi"},
                          "limits": {"cpu": "2", "memory": "4Gi"}}}


def job(workers, failed):
    spec = {"replicas": 1, "restartPolicy": "OnFailure",
            "template": {"spec": {"containers": [container_spec()]}}}
    worker_spec = dict(spec, replicas=workers)
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": JOB, "namespace": NAMESPACE, "uid": "0b1c2d3e-many-replicas",
                         "creationTimestamp": "2024-05-01T10:00:00Z"},
            "spec": {"pytorchReplicaSpecs": {"Master": spec, "Worker": worker_spec}},
            "status": {
                "conditions": [
                    {"type": "Created", "status": "True", "reason": "PyTorchJobCreated",
                     "lastTransitionTime": "2024-05-01T10:00:00Z"},
                    {"type": "Running", "status": "True", "reason": "PyTorchJobRunning",
                     "lastTransitionTime": "2024-05-01T10:00:30Z"}],
                "replicaStatuses": {
                    "Master": {"active": 1, "selector": f"{LABEL}job-name={JOB},"
                               f"{LABEL}operator-name=pytorchjob-controller,"
                               f"{LABEL}replica-type=master"},
                    "Worker": {"active": workers - len(failed), "failed": len(failed),
                               "selector": f"{LABEL}job-name={JOB},"
                               f"{LABEL}operator-name=pytorchjob-controller,"
                               f"{LABEL}replica-type=worker"}},
                "startTime": "2024-05-01T10:00:00Z"}}


def pod(kind, index, how):
    name = f"{JOB}-{kind}-{index}"
    status = {"phase": "Running", "containerStatuses": [
        {"name": "pytorch", "ready": True, "restartCount": 0,
         "state": {"running": {"startedAt": "2024-05-01T10:00:20Z"}}}]}
    if how == "failed":
        status = {"phase": "Failed", "containerStatuses": [
            {"name": "pytorch", "ready": False, "restartCount": 0,
             "state": {"terminated": {"exitCode": 1, "reason": "Error",
                                      "startedAt": "2024-05-01T10:00:20Z",
                                      "finishedAt": f"2024-05-01T10:0{index % 10}:00Z"}}}]}
    elif how == "restarting":
        status = {"phase": "Running", "containerStatuses": [
            {"name": "pytorch", "ready": False, "restartCount": 3,
             "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
                                          "finishedAt": "2024-05-01T10:04:00Z"}},
             "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}
    elif how == "pending":
        status = {"phase": "Pending", "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "message": "0/1 nodes are available: 1 Insufficient cpu."}]}
    labels = {f"{LABEL}job-name": JOB, f"{LABEL}operator-name": "pytorchjob-controller",
              f"{LABEL}replica-type": kind, f"{LABEL}replica-index": str(index)}
    if kind == "master":
        labels[f"{LABEL}job-role"] = "master"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
            "spec": {"containers": [container_spec()], "nodeName": f"node-{index % 64}"},
            "status": status}


def log(name, lines, master):
    out = [f"{name} line {i}" for i in range(1, lines + 1)]
    if master:
        out[0] = json.dumps({"event": "progress", "rank": 0, "epoch": 1, "epochs": 3,
                             "step": 10, "steps_per_epoch": 469, "global_step": 10,
                             "loss": 0.9, "samples_per_sec": 2000.0,
                             "time": "2024-05-01T10:03:12.000Z"})
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("workers", type=int)
    for how in ("failed", "restarting", "pending"):
        parser.add_argument(f"--{how}", type=int, action="append", default=[])
    parser.add_argument("--lines", type=int, default=3)
    parser.add_argument("--ends", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    pods = [pod("master", 0, "")]
    logs = {f"{JOB}-master-0": log(f"{JOB}-master-0", args.lines, True)}
    for i in range(args.workers):
        how = next((h for h in ("failed", "restarting", "pending") if i in getattr(args, h)), "")
        pods.append(pod("worker", i, how))
        logs[f"{JOB}-worker-{i}"] = log(f"{JOB}-worker-{i}", args.lines, False)
    files = {"job.json": job(args.workers, args.failed),
             "pods.json": {"apiVersion": "v1", "kind": "List", "items": pods},
             "events.json": {"apiVersion": "v1", "kind": "List", "items": []}}
    for name, doc in files.items():
        with open(os.path.join(args.dir, name), "w") as out:
            json.dump(doc, out)
    states = [{"job": "job.json", "pods": "pods.json", "events": "events.json"}]
    if args.ends:
        done = files["job.json"]
        done["status"]["conditions"].append(
            {"type": "Succeeded", "status": "True", "reason": "PyTorchJobSucceeded",
             "lastTransitionTime": "2024-05-01T10:09:00Z"})
        done["status"]["completionTime"] = "2024-05-01T10:09:00Z"
        with open(os.path.join(args.dir, "job-succeeded.json"), "w") as out:
            json.dump(done, out)
        states.append(dict(states[0], job="job-succeeded.json"))
    scenario = {"states": states, "logs": logs}
    with open(os.path.join(args.dir, "scenario.json"), "w") as out:
        json.dump(scenario, out)


if __name__ == "__main__":
    main()
