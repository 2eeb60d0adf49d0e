#!/usr/bin/env bash
# Install every Debian package kftrain needs to build, test and run.
# Idempotent: quiet when everything is already installed.
#   scripts/setup.sh           CLI, trainer and test dependencies
#   scripts/setup.sh --cli     only what the CLI and its tests need (no libtorch)
#   scripts/setup.sh --image   only the tools scripts/check-image.sh needs (podman, buildah)
#   scripts/setup.sh --bench   only the reference bench/trainer_vs_pytorch.sh runs against
#                              (PyTorch's Python DDP, the same libtorch); CI does not need it
set -euo pipefail

cli_packages=(
    build-essential cmake pkg-config
    libcli11-dev libyaml-cpp-dev libfmt-dev nlohmann-json3-dev catch2
    libcurl4-openssl-dev python3
    libssl-dev  # the trainer's HTTPS test servers and the certificates they make
    clang-14 libclang-rt-14-dev  # the fuzz targets (fuzz/): clang with libFuzzer
    dpkg-dev file groff-base  # cpack -G DEB's dpkg-shlibdeps, and checking the man page
    bash zsh fish  # the completion scripts are tested in each shell (test_cli_completion.cpp)
)
trainer_packages=(
    libtorch-dev libgloo-dev libopenblas0-pthread zlib1g-dev
)

image_packages=(
    podman buildah debootstrap
)

bench_packages=(
    python3-torch
)

case "${1:-}" in
    --cli) packages=("${cli_packages[@]}") ;;
    --image) packages=("${image_packages[@]}") ;;
    --bench) packages=("${bench_packages[@]}") ;;
    *) packages=("${cli_packages[@]}" "${trainer_packages[@]}") ;;
esac

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
