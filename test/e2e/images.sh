#!/usr/bin/env bash
# The images the cluster suite runs, made here from what this machine already has, and
# imported into the minicluster's containerd (there is no registry):
#   localhost/kftrain-trainer:e2e-HASH   kftrain-trainer as this build made it, with exactly the
#       libraries it loads (packaging/image/collect-runtime.sh, as Dockerfile.trainer's runtime
#       stage does) and Debian's busybox-static as /bin/sh, the user 10001 owning /data and
#       /checkpoints. How it differs from Dockerfile.trainer's image: the test build's binary
#       (RelWithDebInfo, stripped here) instead of a Release build made inside the image, and
#       libtorch_cpu keeps the OpenCV and FFmpeg entries Dockerfile.trainer drops (a bigger
#       image, the same program). scripts/check-image.sh builds and checks the real one.
#   localhost/kftrain-busybox:e2e-HASH   Debian's busybox-static with every applet linked: the
#       data helper pod's image (tar, find, stat, sleep) and the PyTorchJob stand-in's
#       init container (sh, seq, nslookup), in place of busybox:1.36.1 and alpine:3.10.
# HASH is the content's: an image already in containerd is not made or imported again.
#
#   images.sh TRAINER_BINARY MINICLUSTER_SH   prints "trainer=IMAGE" and "busybox=IMAGE"
set -euo pipefail

trainer_binary=$1
minicluster=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say() { echo "[e2e images $(date +%T)] $*" >&2; }

# Whether the cluster's node already holds IMAGE (the kubelet lists its images).
on_node() {
    kubectl get nodes -o jsonpath='{.items[*].status.images[*].names}' | tr ' ' '\n' \
        | grep -qxF "$1"
}

# Make IMAGE from the file tree ROOT (ownership kept) with the given image settings, unless
# the node has it, and import it into containerd.
make_image() {
    local image=$1 root=$2
    shift 2
    if on_node "$image"; then
        say "the node has $image"
        return
    fi
    if ! podman image exists "$image"; then
        local changes=()
        for c in "$@"; do
            changes+=(--change "$c")
        done
        tar -C "$root" -c . | podman import "${changes[@]}" - "$image" >/dev/null
        say "made $image ($(du -sh "$root" | cut -f1))"
    fi
    "$minicluster" import "$image"
}

busybox_root() {
    local root=$1
    mkdir -p "$root/bin" "$root/tmp" "$root/etc"
    chmod 1777 "$root/tmp"
    cp /bin/busybox "$root/bin/busybox"
    local applet
    for applet in $(/bin/busybox --list); do
        [[ $applet == busybox ]] || ln -sf busybox "$root/bin/$applet"
    done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
}

# busybox
mkdir -p "$work/busybox"
busybox_root "$work/busybox"
hash=$( (sha256sum /bin/busybox "$0" | cut -d' ' -f1) | sha256sum | cut -c1-12)
busybox=localhost/kftrain-busybox:e2e-$hash
make_image "$busybox" "$work/busybox" "ENV PATH=/bin" 'CMD ["sh"]'

# kftrain-trainer
strip --strip-debug -o "$work/kftrain-trainer" "$trainer_binary"
hash=$( (sha256sum "$work/kftrain-trainer" "$0" | cut -d' ' -f1) | sha256sum | cut -c1-12)
trainer=localhost/kftrain-trainer:e2e-$hash
if ! on_node "$trainer" && ! podman image exists "$trainer"; then
    root=$work/trainer
    "$repo/packaging/image/collect-runtime.sh" "$work/kftrain-trainer" "$root"
    mkdir -p "$root/bin"
    cp /bin/busybox "$root/bin/busybox"
    ln -s busybox "$root/bin/sh"
    grep -q '^kftrain:' "$root/etc/passwd" \
        || echo 'kftrain:x:10001:0:kftrain:/home/kftrain:/usr/sbin/nologin' >>"$root/etc/passwd"
    install -d -o 10001 -g 0 "$root/home/kftrain" "$root/data" "$root/checkpoints"
    # collect-runtime.sh puts each library at its real path; a RUNPATH directory that is a
    # link here (a build with NCCL: /usr/local/cuda/lib) must lead there in the image too.
    for dir in $(readelf -d "$work/kftrain-trainer" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p' | tr ':' ' '); do
        real=$(readlink -f "$dir" || true)
        if [[ -n $real && $real != "$dir" && -d $root$real && ! -e $root$dir ]]; then
            mkdir -p "$root$(dirname "$dir")"
            ln -s "$real" "$root$dir"
        fi
    done
fi
make_image "$trainer" "${root:-/nonexistent}" "ENV PATH=/usr/local/bin:/usr/bin:/bin" \
    "USER 10001" "WORKDIR /home/kftrain" 'ENTRYPOINT ["kftrain-trainer"]' 'CMD ["--help"]'

echo "trainer=$trainer"
echo "busybox=$busybox"
