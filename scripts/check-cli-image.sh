#!/usr/bin/env bash
# Check Dockerfile.cli without a registry, as scripts/check-image.sh checks the trainer image:
# build the CLI image with `podman build --isolation chroot` over the debootstrap Debian base
# image, then check it with `buildah run --isolation chroot`:
#   - its size (podman's, in MB of 1,000,000 bytes) is at most MAX_IMAGE_MB (100 by default);
#   - it runs as the non-root user 10001, which owns HOME and the files it writes there;
#   - the loader inside the image finds every library and symbol kftrain needs (ldd -r), and
#     kubectl is a static program or resolves the same way;
#   - `kftrain version` and `kubectl version --client` run;
#   - `kftrain render` renders an example job, from a file and from stdin (-f -), to the same
#     PyTorchJob;
#   - kubectl reads a mounted kubeconfig (`kubectl config view`, what kftrain runs), which
#     Debian's kubectl does without the panic it has when writing one;
#   - in a pod with only a service account (KUBERNETES_SERVICE_HOST and the token mounted, no
#     kubeconfig), kftrain goes to the cluster through kubectl rather than to the local backend.
#
#   scripts/check-cli-image.sh                  build and check kftrain-cli:check
#   MAX_IMAGE_MB=80 scripts/check-cli-image.sh  another size limit
#   KEEP_IMAGE=1 scripts/check-cli-image.sh     keep the image afterwards
#   JOBS=2 scripts/check-cli-image.sh           compile jobs in the build stage (1 by default)
# The debootstrap base image is kept and reused (podman rmi it to start afresh).
#
# Needs root (or a user namespace), podman, buildah and debootstrap (scripts/setup.sh --image
# installs them); exits 77 (skipped) when one is missing. Optional: nothing else in the
# repository depends on it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
suite=${SUITE:-bookworm}
mirror=${MIRROR:-http://deb.debian.org/debian}
max_mb=${MAX_IMAGE_MB:-100}
jobs=${JOBS:-1}
base=localhost/kftrain-debian-base:${suite}
image=localhost/kftrain-cli:check
job=examples/mnist-ddp.yaml
work=$(mktemp -d)
name=check-cli-image
source "$repo/scripts/image-check-common.sh"
trap cleanup EXIT

for value in "$max_mb" "$jobs"; do
    if ! [[ $value =~ ^[0-9]+$ ]]; then
        echo "check-cli-image: MAX_IMAGE_MB and JOBS must be whole numbers (got $value)" >&2
        exit 2
    fi
done
require_image_tools

ensure_base_image

echo "check-cli-image: podman build (chroot isolation, $jobs compile job(s))" >&2
# A small build context: only what Dockerfile.cli copies.
"$repo/scripts/image-context.sh" -f Dockerfile.cli copy "$work/context"
podman build --isolation chroot --build-arg "BUILD_BASE=$base" --build-arg "JOBS=$jobs" \
    -f "$work/context/Dockerfile.cli" -t "$image" "$work/context"

bytes=$(podman image inspect --format '{{.Size}}' "$image")
mb=$(((bytes + 500000) / 1000000))
echo "check-cli-image: image size: $mb MB ($bytes bytes; limit $max_mb MB)" >&2
((bytes <= max_mb * 1000000)) || fail "the image is $mb MB, over the $max_mb MB limit (MAX_IMAGE_MB)"

ctr=$(buildah from "$image")
root=$(buildah mount "$ctr")
run() { buildah run --isolation chroot "$@"; }

[[ "$(buildah inspect --format '{{.OCIv1.Config.User}}' "$ctr")" == "10001" ]] \
    || fail "the image does not run as the non-root user 10001"
[[ ! -e $root/bin/sh ]] || fail "the image has a shell (/bin/sh): Dockerfile.cli adds none"
[[ $(stat -c %u "$root/home/kftrain") == 10001 ]] || fail "user 10001 does not own /home/kftrain"
[[ $(stat -c %a "$root/tmp") == 1777 ]] || fail "/tmp is not writable by every user (mode 1777)"

echo "check-cli-image: the programs' libraries, as the loader inside the image finds them" >&2
for program in kftrain kubectl; do
    # A static program has no PT_INTERP: nothing for a loader to resolve.
    if ! LC_ALL=C readelf -l "$root/usr/local/bin/$program" | grep -q 'Requesting program interpreter'; then
        echo "check-cli-image: $program is statically linked" >&2
        continue
    fi
    # What `ldd -r` does: the loader lists the libraries and binds every symbol, then exits.
    run --env LD_TRACE_LOADED_OBJECTS=1 --env LD_BIND_NOW=1 --env LD_WARN=1 "$ctr" -- \
        "/usr/local/bin/$program" >"$work/ldd.txt" 2>&1 \
        || { cat "$work/ldd.txt" >&2; fail "the loader failed on $program"; }
    if grep -E 'not found|undefined symbol' "$work/ldd.txt" >&2; then
        fail "$program's libraries do not all resolve inside the image"
    fi
    echo "check-cli-image: $program: $(grep -c '=>' "$work/ldd.txt") libraries, all found" >&2
done

run "$ctr" -- kftrain version
kubectl_version=$(run "$ctr" -- kubectl version --client) || fail "kubectl version --client failed"
echo "$kubectl_version"

echo "check-cli-image: kftrain render -f $job, from a file and from stdin" >&2
buildah copy --chown 10001:0 "$ctr" "$repo/$job" /home/kftrain/job.yaml >/dev/null
run "$ctr" -- kftrain render -f /home/kftrain/job.yaml >"$work/file.yaml" \
    || fail "kftrain render -f job.yaml failed in the image"
run "$ctr" -- kftrain render -f - <"$repo/$job" >"$work/stdin.yaml" \
    || fail "kftrain render -f - failed in the image"
grep -qx 'kind: PyTorchJob' "$work/file.yaml" || { cat "$work/file.yaml" >&2; fail "no PyTorchJob rendered"; }
cmp -s "$work/file.yaml" "$work/stdin.yaml" || fail "render -f - and render -f FILE differ"
echo "check-cli-image: rendered a PyTorchJob of $(wc -l <"$work/file.yaml") lines" >&2

echo "check-cli-image: kubectl reads a mounted kubeconfig as user 10001" >&2
mkdir -p "$work/kube"
cat >"$work/kube/config" <<'EOF'
apiVersion: v1
kind: Config
clusters:
- name: check
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: check
  context: {cluster: check, user: check, namespace: ml-training}
current-context: check
users:
- name: check
  user: {token: not-a-token}
EOF
chmod -R a+rX "$work/kube"
run --volume "$work/kube:/kube:ro" --env KUBECONFIG=/kube/config "$ctr" -- \
    kubectl config view --minify -o 'jsonpath={..namespace}' >"$work/ns.txt" \
    || fail "kubectl config view failed on a mounted kubeconfig"
[[ $(cat "$work/ns.txt") == ml-training ]] || fail "kubectl config view read '$(cat "$work/ns.txt")', not ml-training"

echo "check-cli-image: in a pod with only a service account, kftrain uses the cluster" >&2
# What the kubelet gives a pod: the service's address and the account's token, CA and namespace.
# Nothing listens on 127.0.0.1:1, so kubectl's refusal shows it took the in-cluster address.
mkdir -p "$work/sa"
echo not-a-token >"$work/sa/token"
cp /etc/ssl/certs/ca-certificates.crt "$work/sa/ca.crt"
echo ml-training >"$work/sa/namespace"
chmod -R a+rX "$work/sa"
if run --volume "$work/sa:/var/run/secrets/kubernetes.io/serviceaccount:ro" \
    --env KUBERNETES_SERVICE_HOST=127.0.0.1 --env KUBERNETES_SERVICE_PORT=1 "$ctr" -- \
    kftrain list >"$work/list.txt" 2>&1; then
    cat "$work/list.txt" >&2
    fail "kftrain list found jobs with no cluster: it did not use the in-cluster kubectl"
fi
grep -q '127.0.0.1:1 was refused' "$work/list.txt" \
    || { cat "$work/list.txt" >&2; fail "kftrain list did not reach kubectl's in-cluster config"; }
head -1 "$work/list.txt" >&2

echo "check-cli-image: files kftrain writes in HOME belong to user 10001" >&2
# The local backend needs kftrain-trainer, which this image leaves out: submit --local refuses,
# after making its state directory under HOME as the user it runs as.
buildah copy --chown 10001:0 "$ctr" "$repo/examples/mnist-local.yaml" /home/kftrain/local.yaml >/dev/null
if run "$ctr" -- kftrain submit --local -f /home/kftrain/local.yaml 2>"$work/submit.txt"; then
    fail "kftrain submit --local ran a job in an image without kftrain-trainer"
fi
[[ -d $root/home/kftrain/.local/state/kftrain ]] \
    || { cat "$work/submit.txt" >&2; fail "kftrain made no state directory under HOME"; }
others=$(find "$root/home/kftrain" ! -uid 10001)
[[ -z $others ]] || fail "files under HOME not owned by user 10001: $others"

echo "check-cli-image: ok ($image, $mb MB, kubectl $(grep -o 'GitVersion:"[^"]*"' <<<"$kubectl_version" | cut -d'"' -f2))" >&2
