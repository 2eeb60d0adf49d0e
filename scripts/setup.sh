#!/usr/bin/env bash
# Install every Debian package kftrain needs to build, test and run.
# Idempotent: quiet when everything is already installed.
#   scripts/setup.sh           CLI, trainer and test dependencies
#   scripts/setup.sh --cli     only what the CLI and its tests need (no libtorch)
#   scripts/setup.sh --image   only the tools scripts/check-image.sh needs (podman, buildah)
#   scripts/setup.sh --e2e     only what the cluster suite adds (test/e2e/run.sh, make e2e):
#                              its images and CRDs; ../shared/cluster/minicluster.sh installs
#                              the cluster's own packages
#   scripts/setup.sh --bench   only the reference bench/trainer_vs_pytorch.sh runs against
#                              (PyTorch's Python DDP, the same libtorch); CI does not need it
set -euo pipefail

cli_packages=(
    build-essential cmake pkg-config
    libcli11-dev libyaml-cpp-dev libfmt-dev nlohmann-json3-dev catch2
    libcurl4-openssl-dev python3
    python3-tqdm  # real programs drawing tqdm bars, read as progress in the tests (docs/progress.md)
    libssl-dev  # the local status server (HTTPS), the trainer's test servers, their certificates
    clang-14 libclang-rt-14-dev  # the fuzz targets (fuzz/): clang with libFuzzer
    clang-format-14  # make format, and the format check CI runs (make format-check)
    dpkg-dev file groff-base  # cpack -G DEB's dpkg-shlibdeps, and checking the man page
    universal-ctags  # function lengths in scripts/check-layout.py (a test)
    ccache  # make's compiler launcher: a clean clone reuses objects an earlier build compiled
    bash zsh fish  # the completion scripts are tested in each shell (test/cli/completion_test.cpp)
)
trainer_packages=(
    # OpenBLAS's OpenMP build shares torch's OpenMP threads; the pthreads build runs a second
    # pool that fights them for the cores (3-4x slower steps at --threads 2, docs/benchmarks.md).
    libtorch-dev libgloo-dev libopenblas0-openmp zlib1g-dev
    # examples/python-ddp, a user's own PyTorch script, trains locally in the tests
    python3-torch
    # examples/xgboost: distributed XGBoost as an XGBoostJob and on xgboost-distributed
    python3-xgboost
    # a real Prometheus scrapes the trainer's /metrics in the tests; promtool checks the format
    prometheus
)

image_packages=(
    podman buildah debootstrap
)

e2e_packages=(
    podman buildah debootstrap  # the images test/e2e/images.sh makes and the cluster imports
    busybox-static  # their shell, the data helper's tar and the init container's nslookup
    python3-yaml    # test/e2e/crds.py
)

bench_packages=(
    python3-torch
)

case "${1:-}" in
    --cli) packages=("${cli_packages[@]}") ;;
    --image) packages=("${image_packages[@]}") ;;
    --e2e) packages=("${e2e_packages[@]}") ;;
    --bench) packages=("${bench_packages[@]}") ;;
    *) packages=("${cli_packages[@]}" "${trainer_packages[@]}") ;;
esac

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The MCP server's tests drive it with the official TypeScript SDK client (test/mcp-client,
# installed by npm ci from its lockfile): Node.js 18+ and npm. A machine that has both, from any
# source, keeps them; otherwise Debian's.
if [[ "${1:-}" != "--image" && "${1:-}" != "--bench" && "${1:-}" != "--e2e" ]] &&
    ! { command -v node && command -v npm; } >/dev/null 2>&1; then
    echo "setup: installing nodejs npm" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

# libtorch finds OpenBLAS through the libblas.so.3, liblapack.so.3 and libopenblas.so.0
# alternatives: point them at the OpenMP build where another (the pthreads build an earlier
# setup installed) has them.
if [[ " ${packages[*]} " == *" libopenblas0-openmp "* ]]; then
    arch=$(gcc -print-multiarch)
    for lib in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
        want="/usr/lib/$arch/openblas-openmp/$lib"
        if [[ -e "$want" && "$(readlink -f "/usr/lib/$arch/$lib")" != "$(readlink -f "$want")" ]]; then
            echo "setup: $lib -> $want (update-alternatives)" >&2
            $sudo update-alternatives --quiet --set "$lib-$arch" "$want"
        fi
    done
fi
