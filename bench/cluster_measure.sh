#!/usr/bin/env bash
# How well does `kftrain estimate --measure --on-cluster` predict whole runs on the cluster,
# beside what a user would pick instead: a measurement on this machine (--measure), or the
# trainer's built-in profile (no measurement)? The trainer image (mnist-cnn, 16384 synthetic
# samples, batch 32, a core a replica) as a PyTorchJob: each round measures it on the cluster
# at 1 and 2 replicas for MEASURE each and here likewise, then runs it whole on the cluster at
# each size: from the job's creation to its master's container's end, what a user waits for.
# Runs inside the cluster suite's setup (the minicluster, its images, the stand-ins):
#
#   KFTRAIN_E2E_RUN='bench/cluster_measure.sh build 20s 1' test/e2e/run.sh build
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
measure=${2:-20s}
rounds=${3:-1}
kftrain="$build/kftrain"
image=${KFTRAIN_E2E_TRAINER_IMAGE:?run it through test/e2e/run.sh (KFTRAIN_E2E_RUN)}
out=$(mktemp -d)
ns=bench-measure-$$
trap 'kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
export XDG_STATE_HOME="$out/state" PATH="$build:$PATH"
kubectl create namespace "$ns" >/dev/null
until kubectl -n "$ns" get serviceaccount default >/dev/null 2>&1; do sleep 0.5; done

cat >"$out/job.yaml" <<JOB
name: bench-fit
kind: PyTorchJob
image: $image
replicas: 2
resources:
  cpu: "1"
  memory: 512Mi
trainer:
  dataset: synthetic
  model: mnist-cnn
  samples: 16384
  batchSize: 32
  epochs: 1
  threads: 1
  logEvery: 4
  timeout: 300
JOB

# Seconds from the job's creation to the end of its master's training container.
whole_run() {
    local job=$1
    kubectl -n "$ns" get pytorchjob "$job" -o json >"$out/job.json"
    kubectl -n "$ns" get pod "$job-master-0" -o json >"$out/pod.json"
    python3 - "$out/job.json" "$out/pod.json" <<'PY'
import datetime, json, sys
t = lambda s: datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()
job, pod = (json.load(open(p)) for p in sys.argv[1:])
end = next(c["state"]["terminated"]["finishedAt"] for c in pod["status"]["containerStatuses"] if c["name"] == "pytorch")
print(t(end) - t(job["metadata"]["creationTimestamp"]))
PY
}

echo "estimate --measure --on-cluster accuracy: the trainer image ($image), mnist-cnn 16384 samples," \
    "batch 32, 1 core per replica, on the minicluster's node ($(nproc) cores), measured for $measure" \
    "per size, $rounds round(s); $(date -u +%Y-%m-%d)"
echo "command: KFTRAIN_E2E_RUN='$0 $*' test/e2e/run.sh"
: >"$out/runs1"
: >"$out/runs2"
for ((round = 1; round <= rounds; round++)); do
    "$kftrain" -n "$ns" estimate -f "$out/job.yaml" --measure --on-cluster --yes \
        --measure-replicas 1,2 --measure-seconds "$measure" --workers 1,2 -o json \
        >"$out/cluster-$round.json" 2>"$out/cluster-$round.err" || { cat "$out/cluster-$round.err" >&2; exit 1; }
    "$kftrain" -n "$ns" estimate -f "$out/job.yaml" --measure --local --measure-replicas 1,2 \
        --measure-seconds "$measure" --workers 1,2 -o json >"$out/here-$round.json" 2>/dev/null
    for world in 1 2; do
        "$kftrain" -n "$ns" submit -f "$out/job.yaml" --set replicas="$world" >/dev/null
        "$kftrain" -n "$ns" wait bench-fit --for succeeded --timeout 10m --interval 1s >/dev/null
        whole_run bench-fit >>"$out/runs$world"
        "$kftrain" -n "$ns" delete bench-fit --wait >/dev/null
    done
done
# No measurement: the trainer's built-in profile (no saved one in a fresh state directory).
XDG_STATE_HOME="$out/none" "$kftrain" -n "$ns" estimate -f "$out/job.yaml" --workers 1,2 -o json >"$out/builtin.json"
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def totals(name):
    return [[s["total_s"] for s in json.load(open(f"{out}/{name}-{r}.json"))["sizes"]] for r in range(1, rounds + 1)]
cluster, here = totals("cluster"), totals("here")
builtin = [s["total_s"] for s in json.load(open(f"{out}/builtin.json"))["sizes"]]
print(f"{'replicas':>8} {'actual':>8} {'on cluster':>12} {'here':>12} {'built-in':>12}")
for i, world in enumerate((1, 2)):
    actual = statistics.median(float(x) for x in open(f"{out}/runs{world}"))
    cells = []
    for p in (statistics.median(r[i] for r in cluster), statistics.median(r[i] for r in here), builtin[i]):
        cells.append(f"{p:6.1f} {100 * (p - actual) / actual:+4.0f}%")
    print(f"{world:>8} {actual:8.1f} " + " ".join(f"{c:>12}" for c in cells))
PY
