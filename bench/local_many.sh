#!/usr/bin/env bash
# A local job of 32 replicas of a small program, each printing 10 lines a second for 5 s:
# wall and CPU seconds of `kftrain run --local --follow` (the CLI following; the replicas are
# the supervisor's children, not counted) and the supervisor's CPU seconds over a run, side by
# side with the same 32 processes started by a plain shell; then status, logs --tail 5,
# diagnose and logs --all of the ended job.
# Figures are farm-bench's medians of 3 runs.
#   bench/local_many.sh [BUILD_DIR]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
kftrain="$build/kftrain"
[[ -x "$kftrain" ]] || { echo "bench: build $kftrain first (make build)" >&2; exit 2; }
command -v farm-bench > /dev/null || { echo "bench: farm-bench is not on PATH" >&2; exit 2; }
work=$(mktemp -d)
export XDG_STATE_HOME="$work/state"
trap '"$kftrain" --local delete many32 > /dev/null 2>&1 || true
      "$kftrain" --local delete many32-supervised > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
cd "$work"
program='i=0; while [ $i -lt 50 ]; do echo "rank $RANK line $i"; i=$((i+1)); sleep 0.1; done'
cat > plain.sh <<PLAIN
for r in \$(seq 0 31); do RANK=\$r sh -c '$program' > /dev/null & done; wait
PLAIN

row() {  # label, then the command: its median wall and cpu seconds
    local label=$1
    shift
    farm-bench -n 3 --timeout 900 -- "$@" 2>&1 |
        awk -v label="$label" '$1 == "A" && $2 == "wall" { wall = $4 }
                               $1 == "A" && $2 == "cpu" { cpu = $4 }
                               END { printf "%-34s %8s %8s\n", label, wall, cpu }'
}

# The supervisor's CPU seconds over one run: it runs apart from the CLI (it outlives a closed
# terminal), so farm-bench does not count it; its /proc/PID/stat is read until it ends.
supervisor_cpu() {
    "$kftrain" --local delete many32-supervised > /dev/null 2>&1 || true
    "$kftrain" --local run --replicas 32 --name many32-supervised --no-code --follow \
        --no-progress -- sh -c "$program" > /dev/null 2>&1 &
    local cli=$! state="$XDG_STATE_HOME/kftrain/jobs/many32-supervised/state.json" pid="" ticks=0 now
    while [[ -z "$pid" || "$pid" == 0 ]] && kill -0 "$cli" 2> /dev/null; do
        pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["supervisor"]["pid"])' \
            "$state" 2> /dev/null || true)
        sleep 0.05
    done
    while [[ -n "$pid" ]] && now=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2> /dev/null); do
        ticks=$now
        sleep 0.1
    done
    wait "$cli" || true
    awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'
}

printf '%-34s %8s %8s\n' "32 replicas, 5 s each" "wall s" "cpu s"
row "kftrain run --local --follow" "$kftrain" --local run --replicas 32 --name many32 --replace \
    --no-code --follow --no-progress -- sh -c "$program"
printf '%-34s %8s %8s\n' "  its supervisor (apart)" "" "$(supervisor_cpu)"
row "the same 32 processes from sh" sh plain.sh
for read in "status many32" "logs many32 --tail 5" "diagnose many32" "logs many32 --all"; do
    read -r -a args <<< "$read"
    row "kftrain --local $read" "$kftrain" --local "${args[@]}"
done
