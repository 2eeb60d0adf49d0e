#!/usr/bin/env bash
# The images the cluster suite runs, made on this machine and imported into the minicluster's
# containerd (there is no registry):
#   localhost/kftrain-trainer:e2e-HASH   the image Dockerfile.trainer builds, as a user builds it
#       (podman build --isolation chroot), on the debootstrap base of scripts/check-image.sh:
#       what ships is what the suite trains with.
#   localhost/kftrain-python:e2e-HASH    Debian's python3 and tqdm (no torch) on the same base: a
#       user's program shipped as code (docs/code.md) runs on it, its tqdm bar read as progress.
#   localhost/kftrain-busybox:e2e-HASH   Debian's busybox-static with every applet linked: the
#       data helper pod's image (tar, find, stat, sleep) and the PyTorchJob stand-in's
#       init container (sh, seq, nslookup), in place of busybox:1.36.1 and alpine:3.10.
# HASH is the content's: an image already in containerd is not made or imported again.
# With KFTRAIN, the python image is also tagged as the image that kftrain gives a python3
# program naming none (`kftrain run -- python3 train.py`), as `kftrain render` shows it.
#
#   images.sh MINICLUSTER_SH [KFTRAIN]   prints "trainer=IMAGE", "python=IMAGE",
#                                        "busybox=IMAGE" and with KFTRAIN "default_python=IMAGE"
set -euo pipefail

minicluster=$1
kftrain=${2:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# What ensure_base_image (scripts/image-check-common.sh) reads.
name="e2e images"
suite=${SUITE:-bookworm}
mirror=${MIRROR:-http://deb.debian.org/debian}
base=localhost/kftrain-debian-base:${suite}
source "$repo/scripts/image-check-common.sh"

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

# kftrain-trainer: Dockerfile.trainer's image, built from exactly the context its COPY lines
# take, on the debootstrap base scripts/check-image.sh uses. podman keeps every layer: when
# none of the copied files changed, the build is a cache hit and takes seconds.
"$repo/scripts/image-context.sh" copy "$work/context"
ensure_base_image
hash=$( (
    podman image inspect --format '{{.Id}}' "$base"
    cd "$work/context" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
) | sha256sum | cut -c1-12)
trainer=localhost/kftrain-trainer:e2e-$hash
if on_node "$trainer"; then
    say "the node has $trainer"
else
    if ! podman image exists "$trainer"; then
        say "podman build -f Dockerfile.trainer (podman caches its layers)"
        podman build --isolation chroot --build-arg "BUILD_BASE=$base" \
            -f "$work/context/Dockerfile.trainer" -t "$trainer" "$work/context" \
            >"$work/image-build.log" 2>&1 || {
            tail -30 "$work/image-build.log" >&2
            exit 1
        }
        say "built $trainer ($(podman image inspect --format '{{.Size}}' "$trainer") bytes)"
    fi
    # Earlier builds' images: the layers podman caches stay, their ~0.5 GB file trees go.
    podman images --format '{{.Repository}}:{{.Tag}}' | grep '^localhost/kftrain-trainer:e2e-' \
        | grep -vxF "$trainer" | xargs -r podman rmi >/dev/null 2>&1 || true
    "$minicluster" import "$trainer"
fi

# python: Debian's python3 and python3-tqdm on the base, its layer cached by podman.
printf 'FROM %s\nRUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \\\n    --no-install-recommends python3 python3-tqdm && rm -rf /var/lib/apt/lists/*\nCMD ["python3"]\n' \
    "$base" >"$work/Containerfile.python"
hash=$( (podman image inspect --format '{{.Id}}' "$base"; cat "$work/Containerfile.python") \
    | sha256sum | cut -c1-12)
python=localhost/kftrain-python:e2e-$hash
if on_node "$python"; then
    say "the node has $python"
else
    if ! podman image exists "$python"; then
        podman build --isolation chroot -f "$work/Containerfile.python" -t "$python" "$work" \
            >"$work/python-build.log" 2>&1 || {
            tail -30 "$work/python-build.log" >&2
            exit 1
        }
        say "built $python"
    fi
    "$minicluster" import "$python"
fi

# Whether the node holds IMAGE and ALIAS as one image (the kubelet lists an image's names
# together).
same_on_node() {
    kubectl get nodes -o json | python3 -c '
import json, sys
names = [set(i.get("names") or []) for n in json.load(sys.stdin)["items"]
         for i in n["status"].get("images") or []]
sys.exit(0 if any({sys.argv[1], sys.argv[2]} <= s for s in names) else 1)' "$1" "$2"
}

if [[ -n $kftrain ]]; then
    default_python=$(printf 'name: x\ncommand: [python3, train.py]\n' \
        | "$kftrain" render -f - -o json | python3 -c '
import json, sys
specs = json.load(sys.stdin)["spec"]["pytorchReplicaSpecs"]
print(next(iter(specs.values()))["template"]["spec"]["containers"][0]["image"])')
    # The name as containerd and the kubelet keep it.
    [[ $default_python == */*/* ]] || default_python=docker.io/$default_python
    if same_on_node "$python" "$default_python"; then
        say "the node has $python as $default_python"
    else
        podman tag "$python" "$default_python"
        "$minicluster" import "$default_python"
    fi
    echo "default_python=$default_python"
fi

echo "trainer=$trainer"
echo "python=$python"
echo "busybox=$busybox"
