#!/usr/bin/env bash
# The steps of a CI job that trains a model on the cluster: check the job file, submit it, wait
# for it, print the logs when it fails, and exit with kftrain's code, so the CI job fails when
# training fails (1), the job file is bad (2), the job is gone (3), the cluster or kubectl
# fails (4) or training outlasts TIMEOUT (5).
#
#   examples/ci.sh [JOB_FILE] [--set KEY=VALUE ...]
#
# Environment:
#   KFTRAIN   kftrain to run (default: kftrain on PATH)
#   FLAGS     flags for every kftrain command, e.g. "--context ci -n ml-training"
#   TIMEOUT   how long to wait for the job (default 2h)
#   WAIT_FLAGS  other flags of kftrain wait, e.g. "--interval 30s"
#   RENDERED  where to write the manifest that is submitted, for the CI job's artifacts
#             (default: rendered.yaml)
# Job files may come from a template through standard input:
#   envsubst < job.yaml.in | examples/ci.sh - --set name=mnist-$CI_PIPELINE_ID
set -euo pipefail

kftrain="${KFTRAIN:-kftrain}"
timeout="${TIMEOUT:-2h}"
rendered="${RENDERED:-rendered.yaml}"
read -r -a flags <<<"${FLAGS:-}"
read -r -a wait_flags <<<"${WAIT_FLAGS:-}"
job="${1:-$(dirname "${BASH_SOURCE[0]}")/mnist-ddp.yaml}"
shift $(($# > 0 ? 1 : 0))
sets=("$@")

step() {
    echo "### $*" >&2
}

# Standard input can be read once: keep it in a file for render and submit.
if [[ "$job" == "-" ]]; then
    job="$(mktemp)"
    trap 'rm -f "$job"' EXIT
    cat >"$job"
fi

step "render: check the job file offline and keep what will be applied in $rendered"
"$kftrain" "${flags[@]}" render -f "$job" "${sets[@]}" >"$rendered"

step "submit"
submitted="$("$kftrain" "${flags[@]}" submit -f "$job" "${sets[@]}")"
echo "$submitted"
# "pytorchjob/NAME submitted": the job's name for the steps below.
ref="${submitted%% *}"
name="${ref#*/}"

step "wait for $ref to succeed (at most $timeout)"
code=0
"$kftrain" "${flags[@]}" wait "$name" --for succeeded --timeout "$timeout" \
    "${wait_flags[@]}" || code=$?
if [[ $code -ne 0 ]]; then
    step "$ref did not succeed (exit code $code): its logs"
    "$kftrain" "${flags[@]}" logs "$name" --timestamps || true
    "$kftrain" "${flags[@]}" describe "$name" || true
fi
exit "$code"
