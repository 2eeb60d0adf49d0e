#!/usr/bin/env bash
# Collect into ROOT what the programs of an image need at run time, for the runtime stage of
# Dockerfile.trainer (kftrain-trainer) or Dockerfile.cli (kftrain and kubectl) to copy whole
# (COPY --from=build ROOT /):
#   - each program, as /usr/local/bin/NAME (NAME: its file name);
#   - every shared library `ldd` finds for each, and the loader, each at its real path with the
#     symbolic links that lead there kept as links (libblas.so.3 -> /etc/alternatives/... ->
#     openblas-openmp/libblas.so.3 stays the BLAS the alternatives system picked here); a
#     statically linked program needs none;
#   - the CA certificates (the trainer posts to MLflow and Kubeflow Trainer over HTTPS, kubectl
#     talks to the API server);
#   - /etc/passwd, /etc/group (with the kftrain user) and /etc/nsswitch.conf, /tmp.
# Nothing else: no shell, no package manager. A library under an --except directory is left
# out (the Dockerfile copies that directory whole: the CUDA libtorch dlopens libraries, such as
# cuDNN's, that ldd cannot see). Libraries the NVIDIA container runtime mounts at run time
# (libcuda, libnvidia-*) may be missing here; any other missing library is an error.
#
#   collect-runtime.sh [--except DIR]... PROGRAM... ROOT
set -euo pipefail

except=()
while [[ $# -gt 0 && $1 == --except ]]; do
    except+=("$(readlink -f "$2")")
    shift 2
done
if [[ $# -lt 2 ]]; then
    echo "usage: collect-runtime.sh [--except DIR]... PROGRAM... ROOT" >&2
    exit 2
fi
programs=("${@:1:$#-1}")
root=${!#}

# Copy PATH to the same place under ROOT. Each directory is taken at its real path (so
# /lib/x86_64-linux-gnu/x lands in usr/lib/x86_64-linux-gnu on a merged-/usr system), and a
# symbolic link is copied as a link and then followed, down to the file it ends at.
copy_path() {
    local path=$1 dir target
    while :; do
        dir=$(readlink -f "$(dirname "$path")")
        path=$dir/$(basename "$path")
        if [[ -e $root$path || -L $root$path ]]; then
            return 0
        fi
        mkdir -p "$root$dir"
        if [[ -L $path ]]; then
            cp -P "$path" "$root$path"
            target=$(readlink "$path")
            [[ $target == /* ]] || target=$dir/$target
            path=$target
        else
            cp -p "$path" "$root$path"
            return 0
        fi
    done
}

excluded() {
    local real dir
    real=$(readlink -f "$1")
    for dir in "${except[@]}"; do
        [[ $real == "$dir"/* ]] && return 0
    done
    return 1
}

# Print the libraries PROGRAM loads, as ldd finds them: nothing for a static program.
libraries_of() {
    local program=$1 listing missing
    if ! listing=$(ldd "$program" 2>&1); then
        if grep -q 'not a dynamic executable' <<<"$listing"; then
            return 0
        fi
        echo "collect-runtime: ldd $program: $listing" >&2
        return 1
    fi
    missing=$(awk '$2 == "=>" && $3 == "not" {print $1}' <<<"$listing" \
        | grep -Ev '^lib(cuda|nvidia-[a-z0-9-]+)\.so(\.|$)' || true)
    if [[ -n $missing ]]; then
        echo "collect-runtime: ldd finds no" $missing "for $program" >&2
        return 1
    fi
    # "name => /path (address)" for libraries, "/path (address)" for the loader.
    awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$listing"
}

mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs"
for program in "${programs[@]}"; do
    libraries=$(libraries_of "$program")
    install -m 0755 "$program" "$root/usr/local/bin/$(basename "$program")"
    for lib in $libraries; do
        excluded "$lib" || copy_path "$lib"
    done
done
# The loader's own path (/lib64/ld-linux-x86-64.so.2) and the library directories go through
# the merged-/usr links at the top: keep them as they are here.
for top in /lib /lib64; do
    if [[ -L $top && ! -L $root$top ]]; then
        cp -P "$top" "$root$top"
    fi
done
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
cp /etc/passwd /etc/group /etc/nsswitch.conf "$root/etc/"
mkdir -p -m 1777 "$root/tmp"
chmod 1777 "$root/tmp"
