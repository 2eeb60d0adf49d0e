#!/usr/bin/env bash
# How well does `kftrain estimate` predict a whole run? For each model, every round:
# measure a profile at 1 replica with kftrain-trainer --benchmark (steps, warm-up,
# evaluation, a checkpoint and the process start) and one at 2 ranks (shared memory: the
# step with its all-reduce, the rendezvous), then time whole real runs (process start to
# the last rank's exit: start-up, every epoch, the evaluation after each, the checkpoints)
# at 1 and 2 replicas (on 127.0.0.1). Then ask `kftrain --local estimate` with all the
# profiles (it takes each figure's median per world size) for the total time at 1 and 2
# replicas and compare it with the median of the measured runs. Each replica gets half the
# cores, so two replicas do not oversubscribe the machine and the profile is measured with
# the same threads as each replica. Then examples/python-ddp, a user's own program, from
# `estimate --measure` (estimate_program_accuracy.sh, with its defaults).
# Every round also asks the estimate from that round's two profiles alone, as a user who
# measured once would, and says whether each of its whole runs fell inside the printed range
# (total_s_low..total_s_high), counting them: "inside the range: k of n".
#
#   bench/estimate_accuracy.sh [BUILD_DIR] [TRAINER] [MODEL:SAMPLES,...] [BATCH] [EPOCHS] [ROUNDS]
#   bench/estimate_accuracy.sh build build/kftrain-trainer mnist-cnn:2560,mlp:20480 32 3 3
set -euo pipefail
source "$(dirname "$0")/free_port.sh"

build=${1:-build}
trainer=${2:-$build/kftrain-trainer}
models=${3:-mnist-cnn:2560,mlp:20480}
batch=${4:-32}
epochs=${5:-3}
rounds=${6:-3}
kftrain="$build/kftrain"
for exe in "$kftrain" "$trainer"; do
    [[ -x "$exe" ]] || { echo "estimate_accuracy: $exe not found (build it first)" >&2; exit 2; }
done
cores=$(nproc)
threads=$(( cores / 2 > 0 ? cores / 2 : 1 ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
: >"$out/inside"
: >"$out/inside-all"

launch() {  # world rank log args...: one rank of a local job
    local world=$1 rank=$2 log=$3
    shift 3
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$world RANK=$rank \
        "$trainer" "${common[@]}" "$@" >"$log" 2>"$log.err"
}

run_ranks() {  # world args...: run every rank of a job on $port and wait for all of them
    local world=$1
    shift
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

now() { date +%s.%N; }

inside_range() {  # estimate.json world run_s label: whether the run fell inside the range
    python3 "$(dirname "$0")/inside_range.py" "$@" 28 2
}

echo "kftrain estimate accuracy, whole runs: synthetic samples x $epochs epochs, batch" \
    "$batch per replica, a checkpoint after every epoch, $threads thread(s) per replica on" \
    "$cores cores, $rounds rounds; $(date -u +%Y-%m-%d)"
echo "command: $0 $*"
echo "predicted: kftrain --local estimate (total) from a 1-rank and a 2-rank profile per round"
echo "measured: wall time from starting the ranks to the last one's exit, median of the rounds"
echo "spread: (slowest - fastest) / median of the rounds' profile steps, and of their whole runs"
printf '%-16s %-9s %10s %10s %8s %8s %8s   %s\n' model:samples replicas "predicted" "measured" \
    error "profiles" "runs" \
    "prediction: start-up + rendezvous + warm-up + epochs x (train + eval) + checkpoints"
IFS=, read -r -a model_list <<<"$models"
for pair in "${model_list[@]}"; do
    model=${pair%%:*}
    samples=${pair#*:}
    [[ $pair == *:* && $samples =~ ^[0-9]+$ ]] ||
        { echo "estimate_accuracy: MODELS: want MODEL:SAMPLES,... (got $pair)" >&2; exit 2; }
    rm -rf "$out/ck"
    mkdir -p "$out/ck"
    common=(--model "$model" --dataset synthetic --samples "$samples" --batch-size "$batch"
            --threads "$threads")
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
  epochs: $epochs
  threads: $threads
  checkpointDir: $out/ck
JOB
    : >"$out/times1"
    : >"$out/times2"
    profiles=()
    for ((round = 1; round <= rounds; round++)); do
        # A profile at 1 and at 2 ranks every round, as a user measures repeats: the estimate
        # takes each figure's median over them.
        "$trainer" "${common[@]}" --benchmark 20 --checkpoint-dir "$out/ck" \
            --profile-out "$out/profile1-$round.json" >/dev/null
        port=$(free_port)
        run_ranks 2 --benchmark 20 --profile-out "$out/profile2-$round.json"
        profiles+=(--profile "$out/profile1-$round.json" --profile "$out/profile2-$round.json")
        "$kftrain" --local estimate -f "$out/job.yaml" --profile "$out/profile1-$round.json" \
            --profile "$out/profile2-$round.json" --workers 1,2 -o json >"$out/round-$round.json"
        for world in 1 2; do
            rm -rf "$out/ck"/*
            port=$(free_port)  # before the clock starts: it runs a Python
            start=$(now)
            run_ranks "$world" --epochs "$epochs" --checkpoint-dir "$out/ck" \
                --log-format json --log-every 100000
            run_s=$(python3 -c "print($(now) - $start)")
            echo "$run_s" >>"$out/times$world"
            inside_range "$out/round-$round.json" "$world" "$run_s" "$pair round $round" \
                >>"$out/inside"
        done
    done
    "$kftrain" --local estimate -f "$out/job.yaml" "${profiles[@]}" --workers 1,2 -o json \
        >"$out/estimate.json"
    for world in 1 2; do
        while read -r run_s; do
            inside_range "$out/estimate.json" "$world" "$run_s" "$pair all rounds" >>"$out/inside-all"
        done <"$out/times$world"
        python3 - "$out/estimate.json" "$out/times$world" "$pair" "$world" \
            "$out"/profile"$world"-*.json <<'PY'
import json, statistics, sys
e = json.load(open(sys.argv[1]))
world = int(sys.argv[4])
s = e["sizes"][world - 1]
runs = [float(t) for t in open(sys.argv[2])]
measured = statistics.median(runs)
error = 100 * (s["total_s"] - measured) / measured
steps = [json.load(open(f))["compute_s_per_step"] for f in sys.argv[5:]]
spread = lambda xs: 100 * (max(xs) - min(xs)) / statistics.median(xs)
parts = "%.2f + %.2f + %.2f + %d x (%.2f + %.2f) + %.2f" % (
    e["startup_s"], s["rendezvous_s"], e["warmup_s"], e["epochs"], s["epoch_s"], s["eval_s"],
    s["checkpoint_s"])
print("%-16s %-9d %9.2fs %9.2fs %+7.0f%% %7.0f%% %7.0f%%   %s" % (
    sys.argv[3], world, s["total_s"], measured, error, spread(steps), spread(runs), parts))
PY
    done
done
echo
echo "each round's own estimate (its two profiles alone) against its whole runs:"
printf '%-28s %-9s %10s %-15s %10s  %s\n' "model:samples round" replicas predicted "(range)" \
    measured "verdict"
cat "$out/inside"
echo "inside the range: $(grep -c ' inside ' "$out/inside" || true) of $(wc -l <"$out/inside")"
echo "the estimate from every round's profiles (medians, their blocks pooled) against every" \
    "whole run: inside the range: $(grep -c ' inside ' "$out/inside-all" || true) of" \
    "$(wc -l <"$out/inside-all")"
echo "load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# A user's own program (examples/python-ddp) the same way, from `estimate --measure`.
echo
"$(dirname "$0")/estimate_program_accuracy.sh" "$build"
