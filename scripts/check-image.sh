#!/usr/bin/env bash
# Check Dockerfile.trainer without a registry: make a Debian base image with debootstrap from
# the configured apt mirror, build the trainer image with `podman build --isolation chroot`,
# then check it with `buildah run --isolation chroot`:
#   - its size (podman's, in MB of 1,000,000 bytes) is at most MAX_IMAGE_MB (500 by default);
#   - the loader finds every library and symbol the trainer needs (ldd -r, inside the image);
#   - it runs as the non-root user 10001, which can write /data and /checkpoints;
#   - a tiny training run works with one rank, and with two (PET_NPROC_PER_NODE=2 and no
#     PET_NODE_RANK, as torchrun takes a single node: shared memory where the container has
#     /dev/shm, else Gloo over 127.0.0.1);
#   - it runs under Katib's StdOut metrics collector: the trainer started by exactly the
#     `sh -c "... 1>/var/log/katib/metrics.log 2>&1 && echo completed > ..."` wrapper Katib's
#     webhook gives a trial's container, its metric lines landing in the file;
#   - the BLAS the loader brings in is OpenBLAS.
#
#   scripts/check-image.sh                  build and check kftrain-trainer:check
#   MAX_IMAGE_MB=600 scripts/check-image.sh another size limit
#   KEEP_IMAGE=1 scripts/check-image.sh     keep the trainer image afterwards
# The debootstrap base image is kept and reused (podman rmi it to start afresh).
#
# Needs root (or a user namespace), podman, buildah and debootstrap (scripts/setup.sh --image
# installs them); exits 77 (skipped) when one is missing. Optional: nothing else in the
# repository depends on it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
suite=${SUITE:-bookworm}
mirror=${MIRROR:-http://deb.debian.org/debian}
max_mb=${MAX_IMAGE_MB:-500}
base=localhost/kftrain-debian-base:${suite}
image=localhost/kftrain-trainer:check
work=$(mktemp -d)
name=check-image
source "$repo/scripts/image-check-common.sh"
trap cleanup EXIT

if ! [[ $max_mb =~ ^[0-9]+$ ]]; then
    echo "check-image: MAX_IMAGE_MB must be a whole number of MB (got $max_mb)" >&2
    exit 2
fi
require_image_tools

ensure_base_image

echo "check-image: podman build (chroot isolation)" >&2
# A small build context: only what Dockerfile.trainer copies (build directories are huge).
"$repo/scripts/image-context.sh" copy "$work/context"
# The runtime stage starts FROM scratch (RUNTIME_BASE's default): only the build needs a base.
podman build --isolation chroot --build-arg "BUILD_BASE=$base" \
    -f "$work/context/Dockerfile.trainer" -t "$image" "$work/context"

bytes=$(podman image inspect --format '{{.Size}}' "$image")
mb=$(((bytes + 500000) / 1000000))
echo "check-image: image size: $mb MB ($bytes bytes; limit $max_mb MB)" >&2
((bytes <= max_mb * 1000000)) || fail "the image is $mb MB, over the $max_mb MB limit (MAX_IMAGE_MB)"

ctr=$(buildah from "$image")
run() { buildah run --isolation chroot "$@"; }

echo "check-image: the trainer's libraries, as the loader inside the image finds them" >&2
# What `ldd -r` does: the loader lists the libraries and binds every symbol, then exits.
run --env LD_TRACE_LOADED_OBJECTS=1 --env LD_BIND_NOW=1 --env LD_WARN=1 "$ctr" -- \
    /usr/local/bin/kftrain-trainer >"$work/ldd.txt" 2>&1 || { cat "$work/ldd.txt" >&2; fail "the loader failed"; }
if grep -E 'not found|undefined symbol' "$work/ldd.txt" >&2; then
    fail "the trainer's libraries do not all resolve inside the image"
fi
echo "check-image: $(grep -c '=>' "$work/ldd.txt") libraries, all found" >&2
if grep -E 'lib(opencv|av(codec|format|util)|Qt5)' "$work/ldd.txt" >&2; then
    fail "the trainer still loads OpenCV, FFmpeg or Qt"
fi

run "$ctr" -- kftrain-trainer --version
[[ "$(buildah inspect --format '{{.OCIv1.Config.User}}' "$ctr")" == "10001" ]] \
    || fail "the image does not run as the non-root user 10001"
# Writes into /data and /checkpoints check that user 10001 owns them.
run "$ctr" -- kftrain-trainer make-dataset mnist --out /data/mnist --samples 500

echo "check-image: one rank" >&2
run --env LD_DEBUG=libs "$ctr" -- kftrain-trainer --dataset mnist --data-dir /data/mnist \
    --model mlp --epochs 1 --log-format json --threads 1 --checkpoint-dir /checkpoints/one \
    >"$work/one.log" 2>"$work/one.err" || { tail -20 "$work/one.err" >&2; fail "the one-rank run failed"; }
grep '"event":"finish"' "$work/one.log" || fail "no finish event in the one-rank run"
# Debian's libblas.so.3 is whichever BLAS the alternatives system picked when the image was
# built; OpenBLAS's needs libopenblas.so.0, the reference BLAS does not.
grep -q 'calling init: .*/libopenblas\.so\.0$' "$work/one.err" \
    || fail "the loader did not bring in OpenBLAS: the trainer would use the reference BLAS"
echo "check-image: the loader initialised $(grep -c 'calling init:' "$work/one.err") libraries, OpenBLAS among them" >&2

echo "check-image: two ranks in one container (PET_NPROC_PER_NODE=2)" >&2
# The PET_* variables a PyTorchJob with nprocPerNode: 2 and one replica gets. chroot isolation
# shares this machine's network: take a port that is free now.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run --env PET_NPROC_PER_NODE=2 --env PET_NNODES=1 \
    --env PET_MASTER_ADDR=127.0.0.1 --env PET_MASTER_PORT="$port" "$ctr" -- \
    kftrain-trainer --dataset mnist --data-dir /data/mnist --model mlp --epochs 1 \
    --log-format json --threads 1 --checkpoint-dir /checkpoints/two >"$work/two.log" \
    || fail "the two-rank run failed"
grep '"event":"finish"' "$work/two.log" | grep -q '"world_size":2' \
    || fail "no finish event with world_size 2 in the two-rank run"
grep '"event":"finish"' "$work/two.log"

echo "check-image: under Katib's StdOut metrics collector (sh -c wrapper)" >&2
# Katib's webhook (pkg/webhook/v1beta1/pod/inject_webhook.go, wrapWorkerContainer) makes the
# trial container's command `sh -c "<command> <args> 1>/var/log/katib/metrics.log 2>&1 &&
# echo completed > /var/log/katib/$$$$.pid"` and mounts an emptyDir at /var/log/katib.
mkdir -p "$work/katib"
chown 10001 "$work/katib"
trial="kftrain-trainer --dataset mnist --data-dir /data/mnist --model mlp --epochs 1 --threads 1"
trial+=" --log-format json --metric-lines true"
run --volume "$work/katib:/var/log/katib" "$ctr" -- sh -c \
    "$trial 1>/var/log/katib/metrics.log 2>&1 && echo completed > /var/log/katib/\$\$\$\$.pid" \
    || { cat "$work/katib/metrics.log" >&2 || true; fail "the trial under Katib's sh -c wrapper failed"; }
# Katib's default filter finds name=value anywhere in a line; the trainer stamps its lines.
grep -E '(^| )accuracy=[0-9.]+' "$work/katib/metrics.log" >&2 \
    || { tail -5 "$work/katib/metrics.log" >&2; fail "no accuracy=... metric line in Katib's metrics.log"; }
ls "$work/katib"/*.pid >/dev/null 2>&1 || fail "Katib's wrapper wrote no completed .pid file"
grep -qx completed "$work/katib"/*.pid || fail "the .pid file does not say completed"

echo "check-image: ok ($image, $mb MB)" >&2
