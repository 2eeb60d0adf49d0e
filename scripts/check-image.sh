#!/usr/bin/env bash
# Check Dockerfile.trainer without a registry: make a Debian base image with debootstrap from
# the configured apt mirror, build the trainer image with `podman build --isolation chroot`,
# then run the trainer inside it with `buildah run --isolation chroot` (a tiny training run).
#
#   scripts/check-image.sh              build and check kftrain-trainer:check
#   KEEP_IMAGE=1 scripts/check-image.sh keep the trainer image afterwards
# The debootstrap base image is kept and reused (podman rmi it to start afresh).
#
# Needs root (or a user namespace), podman, buildah and debootstrap; exits 77 (skipped) when
# one is missing. Optional: nothing else in the repository depends on it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
suite=${SUITE:-bookworm}
mirror=${MIRROR:-http://deb.debian.org/debian}
base=localhost/kftrain-debian-base:${suite}
image=localhost/kftrain-trainer:check
work=$(mktemp -d)
ctr=""

cleanup() {
    [[ -n "$ctr" ]] && buildah rm "$ctr" >/dev/null 2>&1 || true
    if [[ -z "${KEEP_IMAGE:-}" ]]; then
        podman rmi -f "$image" >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

for tool in podman buildah debootstrap; do
    if ! command -v "$tool" >/dev/null; then
        echo "check-image: skipped: $tool is not installed (apt-get install podman buildah debootstrap)" >&2
        exit 77
    fi
done

if podman image exists "$base"; then
    echo "check-image: reusing $base" >&2
else
    echo "check-image: debootstrap $suite from $mirror" >&2
    debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    # The image's apt must reach the same mirror as this machine.
    echo "deb $mirror $suite main" >"$work/rootfs/etc/apt/sources.list"
    tar -C "$work/rootfs" -c . | podman import - "$base" >/dev/null
fi

echo "check-image: podman build (chroot isolation)" >&2
# A small build context: only what Dockerfile.trainer copies (build directories are huge).
mkdir -p "$work/context"
cp -r "$repo/CMakeLists.txt" "$repo/src" "$repo/templates" "$repo/Dockerfile.trainer" "$work/context/"
podman build --isolation chroot --build-arg "BUILD_BASE=$base" --build-arg "RUNTIME_BASE=$base" \
    -f "$work/context/Dockerfile.trainer" -t "$image" "$work/context"

echo "check-image: running the trainer in the image" >&2
ctr=$(buildah from "$image")
run() { buildah run --isolation chroot "$ctr" -- "$@"; }
run kftrain-trainer --version
[[ "$(buildah inspect --format '{{.OCIv1.Config.User}}' "$ctr")" == "10001" ]] \
    || { echo "check-image: the image does not run as the non-root user 10001" >&2; exit 1; }
run kftrain-trainer make-dataset mnist --out /tmp/mnist --samples 500
run kftrain-trainer --dataset mnist --data-dir /tmp/mnist --model mlp --epochs 1 \
    --log-format json --threads 1 | tee "$work/run.log"
grep -q '"event":"finish"' "$work/run.log" || { echo "check-image: no finish event" >&2; exit 1; }
echo "check-image: ok ($image)" >&2
