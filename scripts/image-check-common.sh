# What scripts/check-image.sh and scripts/check-cli-image.sh share; sourced by both, after
# they set: name (the messages' prefix), image (the image to build), suite and mirror (the
# debootstrap base), base (its image name) and work (a scratch directory).
#   fail MESSAGE          print "NAME: MESSAGE" and exit 1
#   cleanup               the EXIT trap: unmount and remove the working container, remove the
#                         image unless KEEP_IMAGE is set, and the scratch directory
#   require_image_tools   exit 77 (skipped) when podman, buildah or debootstrap is missing
#   ensure_base_image     make the debootstrap base image once; later runs reuse it
ctr=""

fail() {
    echo "$name: $*" >&2
    exit 1
}

cleanup() {
    if [[ -n "$ctr" ]]; then
        buildah umount "$ctr" >/dev/null 2>&1 || true
        buildah rm "$ctr" >/dev/null 2>&1 || true
    fi
    if [[ -z "${KEEP_IMAGE:-}" ]]; then
        podman rmi -f "$image" >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
}

require_image_tools() {
    local tool
    for tool in podman buildah debootstrap; do
        if ! command -v "$tool" >/dev/null; then
            echo "$name: skipped: $tool is not installed (scripts/setup.sh --image)" >&2
            exit 77
        fi
    done
}

ensure_base_image() {
    if podman image exists "$base"; then
        echo "$name: reusing $base" >&2
        return
    fi
    echo "$name: debootstrap $suite from $mirror" >&2
    debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
        || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    # The image's apt must reach the same mirror as this machine.
    echo "deb $mirror $suite main" >"$work/rootfs/etc/apt/sources.list"
    tar -C "$work/rootfs" -c . | podman import - "$base" >/dev/null
}
