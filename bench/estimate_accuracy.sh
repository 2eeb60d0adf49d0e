#!/usr/bin/env bash
# How well does `kftrain estimate` predict time per epoch? Measure a profile at 1 replica
# with kftrain-trainer --benchmark, measure the loopback all-reduce bandwidth with a
# 2-rank benchmark, ask kftrain estimate for 1 and 2 replicas, then run real 1- and
# 2-replica trainings (Gloo on 127.0.0.1) and compare their time per epoch. Each replica
# gets half the cores, so two replicas do not oversubscribe the machine and the profile
# is measured with the same threads as each replica.
#
#   bench/estimate_accuracy.sh [BUILD_DIR] [TRAINER] [MODEL] [SAMPLES] [BATCH]
#   bench/estimate_accuracy.sh build build/kftrain-trainer mnist-cnn 1280 32
set -euo pipefail

build=${1:-build}
trainer=${2:-$build/kftrain-trainer}
model=${3:-mnist-cnn}
samples=${4:-1280}
batch=${5:-32}
kftrain="$build/kftrain"
for exe in "$kftrain" "$trainer"; do
    [[ -x "$exe" ]] || { echo "estimate_accuracy: $exe not found (build it first)" >&2; exit 2; }
done
cores=$(nproc)
threads=$(( cores / 2 > 0 ? cores / 2 : 1 ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--model "$model" --dataset synthetic --samples "$samples" --batch-size "$batch"
        --threads "$threads")

launch() {  # world rank log args...: one rank of a local Gloo job
    local world=$1 rank=$2 log=$3
    shift 3
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$world RANK=$rank \
        "$trainer" "${common[@]}" "$@" >"$log" 2>"$log.err"
}

run_ranks() {  # world args...: run every rank of a job and wait for all of them
    local world=$1
    shift
    port=$((20000 + RANDOM % 20000))
    local pids=()
    for ((r = 0; r < world; r++)); do
        launch "$world" "$r" "$out/w$world-rank$r.log" "$@" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
}

json() {  # file python-expression-on-j: print a value of a JSON file
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

warm_epoch() {  # log: the mean epoch_time_s of the epoch events after the first (warm-up)
    python3 -c 'import json,sys
times = [e["epoch_time_s"] for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "epoch"]
warm = times[1:] or times
print("%.3f" % (sum(warm) / len(warm)))' "$1"
}

"$trainer" "${common[@]}" --benchmark 20 --profile-out "$out/profile.json" >/dev/null
run_ranks 2 --benchmark 20 --profile-out "$out/profile2.json"
bandwidth=$(json "$out/profile2.json" 'j["allreduce_bandwidth_bytes_per_s"]')

cat >"$out/job.yaml" <<JOB
name: estimate-accuracy
replicas: 2
resources:
  cpu: "$threads"
trainer:
  dataset: synthetic
  model: $model
  samples: $samples
  batchSize: $batch
  epochs: 1
  threads: $threads
JOB
"$kftrain" --local estimate -f "$out/job.yaml" --profile "$out/profile.json" --workers 1,2 \
    --intra-node-network "${bandwidth}B/s" -o json >"$out/estimate.json"

run_ranks 1 --epochs 3 --log-format json --log-every 100000
run_ranks 2 --epochs 3 --log-format json --log-every 100000

echo "kftrain estimate accuracy: $model, $samples synthetic samples, batch $batch per replica,"
echo "$threads thread(s) per replica on $cores cores; $(date -u +%Y-%m-%d)"
echo "command: $0 $*"
echo "load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other work shares the cores)"
echo "profile at 1 replica: $(json "$out/profile.json" '"%.1f ms/step" % (1000 * j["compute_s_per_step"])')"
echo "profile at 2 ranks: $(json "$out/profile2.json" \
    '"%.1f ms/step compute; loopback all-reduce %.0f MB/s (%.1f ms for %.1f MB), overlap %.0f%%" % (1000 * j["compute_s_per_step"], j["allreduce_bandwidth_bytes_per_s"] / 1e6, 1000 * j["allreduce_s_per_step"], j["gradient_bytes"] / 1e6, 100 * j["overlap_fraction"])')"
echo "prediction: the 1-replica profile and the 2-rank loopback bandwidth, overlap not used"
echo "measured: mean time of epochs 2 and 3 (the first warms up) on rank 0"
printf '%-10s %14s %14s %8s\n' replicas "predicted (s)" "measured (s)" error
for world in 1 2; do
    predicted=$(json "$out/estimate.json" "'%.3f' % j['sizes'][$((world - 1))]['epoch_s']")
    measured=$(warm_epoch "$out/w$world-rank0.log")
    error=$(python3 -c "print('%+.0f%%' % (100 * ($predicted - $measured) / $measured))")
    printf '%-10s %14s %14s %8s\n' "$world" "$predicted" "$measured" "$error"
done
