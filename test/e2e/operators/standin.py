#!/usr/bin/env python3
"""Operator stand-ins for the e2e suite: they make real pods for PyTorchJobs and TrainJobs.

The test cluster (../shared/cluster/minicluster.sh, Kubernetes 1.20) has the Kubeflow CRDs but no
controllers. This process plays them, as closely as the reference sources read:
  - the Training Operator v1.9 PyTorchJob controller (pytorchjob.py, pytorchjob_spec.py;
    ../shared/reference/training-operator-v1.9/controller/{pytorch,common}/);
  - Kubeflow Trainer v2.3's TrainJob controller with the JobSet and Job controllers under it
    (trainjob.py; ../shared/reference/trainer-v2.3.0/).
Each round (every --interval seconds) lists the jobs of every namespace and reconciles each one
idempotently; the status goes through the status subresource as the controllers write it.
Objects being deleted are left to the cluster's garbage collector (owner references).

Where it knowingly differs from the real controllers:
  - Polling instead of watches/informers and work queues: reactions come within ~0.5 s.
    The PyTorchJob reconciler's WorkQueue is a FakeWorkQueue in v1.9 too, so backoffLimit's
    "previous retries" are 0 in both.
  - Replica types are reconciled Master first, then Worker; Go's map order is random, so the real
    operator sometimes leaves the Worker's replicaStatuses selector unset after success, the
    stand-in always does (UpdateJobStatus returns at the Master's success).
  - No admission webhooks: a PyTorchJob or TrainJob the real webhooks would reject is reconciled
    anyway (or logged and skipped where it cannot be).
  - TrainJob: no JobSet or Job objects are made; the stand-in makes the pods and the headless
    Service those would end up with, owned by the TrainJob directly (really Pod -> Job -> JobSet
    -> TrainJob); the jobset-uid and controller-uid labels are therefore absent. Kubernetes 1.20
    has no Indexed Jobs: the completion index label/annotation is set by the stand-in.
  - Not emulated: gang scheduling (Volcano/scheduler-plugins PodGroups), the PyTorchJob HPA for
    elastic jobs, JobSet failurePolicy restarts/successPolicy/startupPolicy, MPI/JAX/XGBoost
    TrainJob policies (their pods are made, without the framework env), trainerStatus.
  - The worker's init container names the master fully qualified (see pytorchjob_spec.py
    init_container: Debian busybox's nslookup fails on the short name where alpine:3.10's works).
  - Events: only the controllers' main ones (pod/service created or deleted, condition changes,
    ExitedWithCode once per pod), not aggregated; abnormal-pod events are not recorded.

    python3 test/e2e/operators/standin.py --kubeconfig PATH --init-image IMAGE [--log FILE]
"""
import argparse
import logging
import os
import signal
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kube_api  # noqa: E402
import pytorchjob  # noqa: E402
import trainjob  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--init-image", required=True,
                        help="image of the PyTorchJob worker's init container (the operator's "
                             "--pytorch-init-container-image); needs sh, seq, nslookup, sleep")
    parser.add_argument("--init-max-tries", type=int, default=100,
                        help="the operator's --pytorch-init-container-max-tries (default 100)")
    parser.add_argument("--cluster-domain", default="cluster.local",
                        help="the cluster's DNS domain, for the init container's master name")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between rounds")
    parser.add_argument("--log", help="write the log here instead of stderr")
    args = parser.parse_args()

    handler = logging.FileHandler(args.log) if args.log else logging.StreamHandler(sys.stderr)
    logging.basicConfig(level=logging.INFO, handlers=[handler],
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    log = logging.getLogger("standin")

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    client = kube_api.Client(args.kubeconfig)
    reconcilers = [pytorchjob.PyTorchJobReconciler(client, args.init_image, args.init_max_tries,
                                                  args.cluster_domain),
                   trainjob.TrainJobReconciler(client)]
    ready, errors = False, {}
    while not stop.is_set():
        for reconciler in reconcilers:
            try:
                reconciler.reconcile_all()
            except Exception as e:  # the API server away, a CRD missing: log, try next round
                kube_api.warn_once(errors, type(reconciler).__name__, f"{type(reconciler).__name__}: {e}")
            else:
                errors.pop(type(reconciler).__name__, None)
        if not ready:
            ready = True
            print("stand-in ready", file=sys.stderr, flush=True)
            log.info("stand-in ready")
        stop.wait(args.interval)
    log.info("stand-in stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
