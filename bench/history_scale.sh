#!/usr/bin/env bash
# kftrain history and kftrain cost over many records (docs/history.md, "Scale"): N records of
# finished jobs written as kftrain writes them (kftrain-bench-history-records) under a
# temporary XDG_STATE_HOME, then the median wall time of RUNS runs of each read, beside what a
# user would do by hand over the same files: their first lines (the summaries) with head, and
# every byte of them with cat. Offline: --context names the records' context and no kubectl is
# reached (cost's live jobs are left out, with a warning on stderr).
#   bench/history_scale.sh [BUILD_DIR] [N] [RUNS]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
count=${2:-10000}
runs=${3:-5}
kftrain="$build/kftrain"
writer="$build/bench/kftrain-bench-history-records"
for program in "$kftrain" "$writer"; do
    [[ -x "$program" ]] || { echo "bench: build $program first (make build)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME="$work/state"
export KFTRAIN_KUBECTL="$work/no-kubectl"
root="$XDG_STATE_HOME/kftrain/history"

start=$(date +%s%N)
"$writer" "$count" bench
wrote_ms=$(( ($(date +%s%N) - start) / 1000000 ))
files=$(find "$root" -name '*.jsonl' | wc -l)
bytes=$(du -sb "$root" | cut -f1)

# The median wall milliseconds of RUNS runs of a command (its output thrown away).
median_ms() {
    local times=() start
    for ((i = 0; i < runs; i++)); do
        start=$(date +%s%N)
        "$@" > /dev/null 2>&1
        times+=($(( ($(date +%s%N) - start) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f", m / 1000 }'
}

row() {  # label, then the command
    local label=$1
    shift
    printf '%-52s %8s ms\n' "$label" "$(median_ms "$@")"
}

printf '%s records (%s files, %s MB) written in %s ms; median of %s runs:\n' "$count" "$files" \
    "$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')" "$wrote_ms" "$runs"
row "kftrain history -A" "$kftrain" --context bench history -A
row "kftrain history -A --since 7d --state Failed" "$kftrain" --context bench history -A \
    --since 7d --state Failed
row "kftrain cost -A --since 3650d" "$kftrain" --context bench cost -A --since 3650d
row "kftrain cost -A --since 3650d --by user -o csv" "$kftrain" --context bench cost -A \
    --since 3650d --by user -o csv
row "by hand: find | xargs head -qn1 (the summaries)" sh -c \
    'find "$1" -name "*.jsonl" -print0 | xargs -0 head -qn1 | wc -l' sh "$root"
row "by hand: find | xargs cat (every record)" sh -c \
    'find "$1" -name "*.jsonl" -print0 | xargs -0 cat | wc -c' sh "$root"
