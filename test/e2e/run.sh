#!/usr/bin/env bash
# make e2e: the cluster suite. Starts the real single-node Kubernetes of
# ../shared/cluster/minicluster.sh (its build is cached outside the clone, in $KFE), imports
# the images test/e2e/images.sh makes, loads the CRDs from ../shared/reference/, starts the
# operator stand-ins (test/e2e/operators/), runs the tests labelled e2e (test/e2e/*_e2e.cpp),
# and stops everything it started at the end, also on failure, Ctrl-C or SIGTERM.
#
#   test/e2e/run.sh [BUILD_DIR]     (make e2e; BUILD_DIR must hold kftrain-trainer and the tests)
#
# KFTRAIN_E2E_ONLY=REGEX runs only the tests whose names match (ctest -R), when working on them.
# KFTRAIN_E2E_RUN=COMMAND runs that command (a bench/ script) on the cluster instead of the
# tests, with KUBECONFIG and the images' names in its environment.
#
# Where this machine cannot run the cluster (not root, no minicluster.sh, its build fails),
# the suite says so and skips (exit 0); with CI=true it fails instead.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
minicluster=${MINICLUSTER:-$repo/../shared/cluster/minicluster.sh}
reference=$repo/../shared/reference
work=$(mktemp -d)
# What kftrain keeps between commands (profiles, records of finished jobs) goes to this run's
# own folder, not the user's.
export XDG_STATE_HOME=$work/state
mkdir -p "$XDG_STATE_HOME"
say() { echo "[e2e $(date +%T)] $*" >&2; }

skip() {
    if [[ ${CI:-} == true ]]; then
        say "cannot run: $*"
        exit 1
    fi
    say "skipped: $*"
    exit 0
}

[[ $(id -u) -eq 0 ]] || skip "the cluster's kubelet and containerd need root"
[[ -x $minicluster ]] || skip "no cluster script at $minicluster"
[[ -x $build/kftrain-trainer ]] || skip "no kftrain-trainer in $build (make build first)"

timings=()
started=$SECONDS
phase() {
    local name=$1 t0=$SECONDS code=0
    shift
    say "phase: $name"
    "$@" || code=$?
    timings+=("$(printf 'e2e %-11s %5ds' "$name" $((SECONDS - t0)))")
    return "$code"
}

standin=""
tests=""
was_up=""
cleanup() {
    local code=$?
    trap - EXIT INT TERM
    # The tests run in a session of their own: stop ctest and every test it started.
    if [[ -n $tests ]]; then
        kill -TERM -- -"$tests" 2>/dev/null || true
        wait "$tests" 2>/dev/null || true
    fi
    if [[ -n $standin ]]; then
        kill "$standin" 2>/dev/null || true
        wait "$standin" 2>/dev/null || true
    fi
    if [[ -n ${KUBECONFIG:-} ]] && kubectl get --raw /readyz >/dev/null 2>&1; then
        kubectl get namespaces -o name | grep '^namespace/e2e-' \
            | xargs -r kubectl delete --wait=false >/dev/null 2>&1 || true
        kubectl delete pv -l kftrain-e2e=true --wait=false >/dev/null 2>&1 || true
    fi
    if [[ -z $was_up ]]; then
        "$minicluster" down >/dev/null 2>&1 || say "minicluster.sh down failed"
    else
        say "leaving the cluster up: it was up before the suite started"
    fi
    if [[ $code -ne 0 && -s $work/standin.log ]]; then
        say "the stand-in's log, last lines:"
        tail -30 "$work/standin.log" >&2
    fi
    rm -rf "$work"
    for line in "${timings[@]}"; do
        echo "$line"
    done
    printf 'e2e %-11s %5ds\n' total $((SECONDS - started))
    exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

phase setup "$repo/scripts/setup.sh" --e2e
if "$minicluster" status 2>/dev/null | grep -q '^apiserver running'; then
    was_up=1
fi
start_cluster() {
    "$minicluster" up >"$work/up.out" 2>"$work/up.err" || {
        tail -20 "$work/up.err" >&2
        skip "minicluster.sh up failed"
    }
    KUBECONFIG=$(tail -1 "$work/up.out")
    export KUBECONFIG
}
phase cluster start_cluster
# kftrain runs kubectl from PATH; the cluster's own 1.20 where this machine has none.
command -v kubectl >/dev/null || PATH=$(dirname "$(dirname "$KUBECONFIG")")/mini/bin:$PATH

make_images() {
    "$repo/test/e2e/images.sh" "$minicluster" "$build/kftrain" >"$work/images"
    KFTRAIN_E2E_TRAINER_IMAGE=$(sed -n 's/^trainer=//p' "$work/images")
    KFTRAIN_E2E_BUSYBOX_IMAGE=$(sed -n 's/^busybox=//p' "$work/images")
    KFTRAIN_E2E_PYTHON_IMAGE=$(sed -n 's/^python=//p' "$work/images")
    KFTRAIN_E2E_DEFAULT_PYTHON_IMAGE=$(sed -n 's/^default_python=//p' "$work/images")
    export KFTRAIN_E2E_TRAINER_IMAGE KFTRAIN_E2E_BUSYBOX_IMAGE KFTRAIN_E2E_PYTHON_IMAGE \
        KFTRAIN_E2E_DEFAULT_PYTHON_IMAGE
}
phase images make_images

crd_files=(
    "$reference/kubeflow.org_pytorchjobs.v1.9.0.yaml"
    "$reference"/training-operator-v1.9/crds/kubeflow.org_{tfjobs,xgboostjobs,jaxjobs}.yaml
    "$reference"/trainer-v2.3.0/trainer.kubeflow.org_{trainjobs,clustertrainingruntimes,trainingruntimes}.yaml
    "$reference/katib-v0.19.0/experiment-crd.yaml"
    "$reference/kueue-v0.19.2/kueue.x-k8s.io_localqueues.yaml"
)

# The tests tagged [no-crds] (doctor on a cluster without the operators) run first, on a
# cluster without this suite's CRDs: those an earlier run left are deleted.
run_tests_before_crds() {
    python3 "$repo/test/e2e/crds.py" "${crd_files[@]}" \
        | kubectl delete --ignore-not-found --wait=true -f - >/dev/null
    (cd "$build" && exec setsid ctest -L '^e2e-before-crds$' ${KFTRAIN_E2E_ONLY:+-R "$KFTRAIN_E2E_ONLY"} --output-on-failure --timeout 900) &
    tests=$!
    wait "$tests"
}
[[ -n ${KFTRAIN_E2E_RUN:-} ]] || phase before-crds run_tests_before_crds

load_crds() {
    python3 "$repo/test/e2e/crds.py" "${crd_files[@]}" \
        | kubectl apply --server-side --force-conflicts -f - >/dev/null
    kubectl wait --for condition=established --timeout=60s crd --all >/dev/null
    kubectl apply -f "$reference/trainer-v2.3.0/torch_distributed.yaml" >/dev/null
}
phase crds load_crds

start_standin() {
    python3 "$repo/test/e2e/operators/standin.py" --kubeconfig "$KUBECONFIG" \
        --init-image "$KFTRAIN_E2E_BUSYBOX_IMAGE" >"$work/standin.log" 2>&1 &
    standin=$!
    local deadline=$((SECONDS + 60))
    until grep -q 'stand-in ready' "$work/standin.log"; do
        kill -0 "$standin" 2>/dev/null || { cat "$work/standin.log" >&2; return 1; }
        ((SECONDS < deadline)) || { say "the stand-in did not start"; return 1; }
        sleep 0.2
    done
}
phase standin start_standin

# Two at a time: each job's pods share this machine's two cores.
# In the background, waited for: bash runs a trap only once its foreground command ends, so a
# SIGTERM or SIGINT sent to this script alone (a CI runner's cancel) would wait for the tests.
run_tests() {
    (cd "$build" && exec setsid ctest -L '^e2e$' ${KFTRAIN_E2E_ONLY:+-R "$KFTRAIN_E2E_ONLY"} --output-on-failure --timeout 900 -j 2) &
    tests=$!
    wait "$tests"
}
# KFTRAIN_E2E_RUN: a command of the developer's own (a benchmark), in a session of its own.
run_command() {
    (cd "$repo" && exec setsid bash -c "$KFTRAIN_E2E_RUN") &
    tests=$!
    wait "$tests"
}
if [[ -n ${KFTRAIN_E2E_RUN:-} ]]; then
    phase run run_command
else
    phase tests run_tests
fi
