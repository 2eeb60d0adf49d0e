#!/usr/bin/env bash
# How long one `kftrain render` takes, start to exit: the CLI should start in
# milliseconds. Prints the mean and the fastest of N runs.
#   bench/cli_render.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build}
runs=${2:-50}
kftrain="$build/kftrain"
job="$(dirname "$0")/../examples/mnist-ddp.yaml"
[[ -x "$kftrain" ]] || { echo "bench: build $kftrain first (make build)" >&2; exit 2; }

total=0
best=""
for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$kftrain" render -f "$job" > /dev/null
    took=$(( ($(date +%s%N) - start) / 1000 ))
    total=$((total + took))
    if [[ -z "$best" || $took -lt $best ]]; then
        best=$took
    fi
done
awk -v runs="$runs" -v total="$total" -v best="$best" 'BEGIN {
    printf "kftrain render, %d runs: mean %.2f ms, fastest %.2f ms\n", runs, total / runs / 1000, best / 1000
}'
