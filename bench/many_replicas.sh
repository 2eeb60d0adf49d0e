#!/usr/bin/env bash
# The read verbs on a job of many replicas: seconds and kubectl processes of status, describe,
# logs --tail 1, diagnose and list at 8, 256 and 1024 replicas (1 Master + the rest Workers),
# against the fake cluster (test/fakes/kubectl: a process per call, as the real kubectl),
# side by side with what a user would run instead: `kubectl logs -l SELECTOR --prefix`.
# Each figure is farm-bench's median wall time of 3 runs.
#   bench/many_replicas.sh [BUILD_DIR] [SIZES...]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
shift || true
sizes=("${@:-8 256 1024}")
read -r -a sizes <<< "${sizes[*]}"
root=$(cd "$(dirname "$0")/.." && pwd)
kftrain="$build/kftrain"
[[ -x "$kftrain" ]] || { echo "bench: build $kftrain first (make build)" >&2; exit 2; }
command -v farm-bench > /dev/null || { echo "bench: farm-bench is not on PATH" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KFTRAIN_KUBECTL="$root/test/fakes/kubectl"

# Median wall seconds of a command (farm-bench's "A wall s" row).
median() {
    farm-bench -n 3 --timeout 600 -- "$@" 2>&1 | awk '$1 == "A" && $2 == "wall" { print $4 }'
}

# kubectl processes one run of a command starts (the fake records each call).
processes() {
    local record="$work/record.jsonl"
    rm -f "$record" "$record.state"
    KFTRAIN_FAKE_RECORD="$record" "$@" > /dev/null 2>&1 || true
    wc -l < "$record"
}

printf '%-9s %-28s %9s %10s\n' replicas read seconds kubectl
for replicas in "${sizes[@]}"; do
    dir="$work/job-$replicas"
    "$root/test/fakes/many_replicas.py" "$dir" $((replicas - 1)) --failed 1
    export KFTRAIN_FAKE_SCENARIO="$dir/scenario.json"
    ns=(-n ml-training)
    while IFS='|' read -r name words; do
        read -r -a args <<< "$words"
        cmd=("$kftrain" "${args[@]}")
        [[ "${args[0]}" == list ]] || cmd+=("${ns[@]}")
        printf '%-9s %-28s %9s %10s\n' "$replicas" "$name" "$(median "${cmd[@]}")" \
            "$(processes "${cmd[@]}")"
    done <<'VERBS'
kftrain status|status big
kftrain describe|describe big
kftrain logs --tail 1|logs big --tail 1
kftrain diagnose|diagnose big
kftrain list|list
VERBS
    plain=("$KFTRAIN_KUBECTL" logs -l training.kubeflow.org/job-name=big --prefix --tail=1
           -c pytorch -n ml-training)
    printf '%-9s %-28s %9s %10s\n' "$replicas" "kubectl logs -l --prefix" "$(median "${plain[@]}")" \
        "$(processes "${plain[@]}")"
done
