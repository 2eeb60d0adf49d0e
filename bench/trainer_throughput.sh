#!/usr/bin/env bash
# Measure kftrain-trainer's training throughput on this machine, in samples/s of two epochs:
# the whole run (the finish event's rate, start and evaluations included) and the second
# epoch's training steps alone (its epoch event), for one process with all cores, one
# process with one thread, and two processes on 127.0.0.1 with the cores split between
# them, their gradients summed through shared memory (--backend auto) or over Gloo's TCP
# (--backend gloo, as PyTorch's DDP on CPUs). For a convolutional model the one-process
# rows are repeated with --memory-format contiguous (PyTorch's default layout) beside the
# trainer's default (channels last on the CPU).
#
#   bench/trainer_throughput.sh [BUILD_DIR] [MODEL] [SAMPLES] [BATCH]
#   bench/trainer_throughput.sh build-trainer mnist-cnn 4096 32
set -euo pipefail
source "$(dirname "$0")/free_port.sh"
source "$(dirname "$0")/trainer_log.sh"

build=${1:-build}
model=${2:-mnist-cnn}
samples=${3:-4096}
batch=${4:-32}
trainer="$build/kftrain-trainer"
[[ -x "$trainer" ]] || { echo "trainer_throughput: $trainer not found (build it first)" >&2; exit 2; }
cores=$(nproc)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

common=(--model "$model" --samples "$samples" --epochs 2 --log-format json --log-every 100000)

run_single() {  # threads batch [flag...]
    "$trainer" "${common[@]}" --threads "$1" --batch-size "$2" "${@:3}" >"$out/single.log"
    rate "$out/single.log"
}

run_pair() {  # threads-per-process batch-per-process backend
    local port
    port=$(free_port)
    for r in 0 1; do
        MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 RANK=$r \
            "$trainer" "${common[@]}" --threads "$1" --batch-size "$2" --backend "$3" \
            >"$out/rank$r.log" &
    done
    wait
    rate "$out/rank0.log"
}

echo "kftrain-trainer throughput: model $model, $samples synthetic samples, 2 epochs, $cores cores"
echo "command: $0 $build $model $samples $batch"
printf '%-58s %10s %10s\n' "configuration" "whole run" "epoch 2"
for threads in "$cores" 1; do
    what="1 process, $threads thread, batch $batch"
    ((threads == 1)) || what="1 process, $threads threads, batch $batch"
    printf '%-58s %s\n' "$what" "$(run_single "$threads" "$batch")"
    if [[ $model != mlp ]]; then
        printf '%-58s %s\n' "$what, contiguous" \
            "$(run_single "$threads" "$batch" --memory-format contiguous)"
    fi
done
half=$(( cores / 2 > 0 ? cores / 2 : 1 ))
for backend in auto gloo; do
    how=$([[ $backend == auto ]] && echo "shared memory" || echo "Gloo TCP")
    printf '%-58s %s\n' "2 processes, $half thread each, batch $batch each, $how" \
        "$(run_pair "$half" "$batch" "$backend")"
    printf '%-58s %s\n' "2 processes, $half thread each, batch $((batch / 2)) each, $how" \
        "$(run_pair "$half" "$((batch / 2))" "$backend")"
done
