#!/usr/bin/env bash
# Compare gradient bucket sizes on this machine: two kftrain-trainer processes (on
# 127.0.0.1, through shared memory, the cores split between them) train one epoch with --bucket-mb auto, DDP's
# default of 25 MiB and smaller fixed sizes, in interleaved rounds; prints the median
# samples/s of each (the finish event's rate, start and evaluation included) and the bucket
# size auto chose.
#
#   bench/bucket_sizes.sh [BUILD_DIR] [MODEL] [SAMPLES] [BATCH] [ROUNDS] [SIZES]
#   bench/bucket_sizes.sh build resnet18 512 32 3 "auto 25 4 1"
set -euo pipefail
source "$(dirname "$0")/free_port.sh"

build=${1:-build}
model=${2:-resnet18}
samples=${3:-512}
batch=${4:-32}
rounds=${5:-3}
read -r -a sizes <<<"${6:-auto 25 4 1}"
trainer="$build/kftrain-trainer"
[[ -x "$trainer" ]] || { echo "bucket_sizes: $trainer not found (build it first)" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "bucket_sizes: ROUNDS must be a positive integer (got $rounds)" >&2; exit 2; }
cores=$(nproc)
threads=$(( cores / 2 > 0 ? cores / 2 : 1 ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run_pair() {  # bucket-mb -> rank 0's JSON log in $out/rank0.log
    local port
    port=$(free_port)
    for r in 0 1; do
        MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 RANK=$r \
            "$trainer" --model "$model" --samples "$samples" --batch-size "$batch" --epochs 1 \
            --threads "$threads" --log-format json --log-every 100000 --bucket-mb "$1" \
            >"$out/rank$r.log" &
    done
    wait
}

field() {  # event field log -> the value of field in the first such event
    python3 -c 'import json,sys
for line in open(sys.argv[3]):
    e = json.loads(line)
    if e["event"] == sys.argv[1]:
        print(e[sys.argv[2]]); break' "$1" "$2" "$3"
}

for ((i = 0; i < rounds; i++)); do
    for size in "${sizes[@]}"; do
        run_pair "$size"
        field finish samples_per_sec "$out/rank0.log" >>"$out/rate.$size"
        field start bucket_bytes "$out/rank0.log" >>"$out/bytes.$size"
    done
done

median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "gradient bucket sizes: model $model, $samples synthetic samples, batch $batch per process,"
echo "2 processes x $threads threads on $cores cores, medians of $rounds rounds"
echo "command: $0 $build $model $samples $batch $rounds \"${sizes[*]}\""
printf '%-14s %16s %12s\n' "--bucket-mb" "bucket MiB" "samples/s"
for size in "${sizes[@]}"; do
    printf '%-14s %16.2f %12.1f\n' "$size" "$(median "$out/bytes.$size" | awk '{print $1/1048576}')" \
        "$(median "$out/rate.$size")"
done
