#!/usr/bin/env bash
# The build context of an image's Dockerfile (Dockerfile.trainer unless -f names another, such
# as Dockerfile.cli), as its COPY lines take it from the repository.
#
#   scripts/image-context.sh [-f DOCKERFILE] copy DIR   copy exactly the paths the build stage's
#                                       COPY lines name (and the Dockerfile) into DIR, each at
#                                       its path in the repository
#   scripts/image-context.sh [-f DOCKERFILE] check      copy them into a scratch directory and
#                                       run there the cmake configure the Dockerfile runs (the
#                                       trainer's cpu variant): it fails, naming the path, when
#                                       the image build needs a file the COPY set leaves out
#                                       (or, for the trainer, a package only the CLI needs).
#                                       Seconds, not the image's build: CI runs it as a test.
# Only plain `COPY SRC... DEST` lines are read (not COPY --from=, which copies between stages).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
name=Dockerfile.trainer
if [[ ${1:-} == -f ]]; then
    [[ $# -ge 2 ]] || { echo "image-context: -f needs a Dockerfile" >&2; exit 2; }
    name=$(basename "$2")
    shift 2
fi
dockerfile=$repo/$name
[[ -f $dockerfile ]] || { echo "image-context: no $name in the repository" >&2; exit 2; }

# Print the repository paths the Dockerfile's COPY lines take from the build context.
copy_sources() {
    awk '$1 == "COPY" && $2 !~ /^--/ { for (i = 2; i < NF; ++i) print $i }' "$dockerfile"
}

copy_into() {
    local dir=$1
    mkdir -p "$dir"
    local path
    while read -r path; do
        [[ -e "$repo/$path" ]] || { echo "image-context: $name copies $path, which is not in the repository" >&2; exit 1; }
        mkdir -p "$dir/$(dirname "$path")"
        cp -r "$repo/$path" "$dir/$path"
    done < <(copy_sources)
    cp "$dockerfile" "$dir/"
}

# Print the -D options of the Dockerfile's `cmake -S /src` configure, as the cpu variant runs
# it ($nccl is OFF there).
configure_options() {
    awk '/cmake -S \/src/, /cmake --build/' "$dockerfile" | grep -o -- '-D[A-Za-z_]*=[^ \\]*' \
        | sed 's/\$nccl/OFF/'
}

check() {
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    copy_into "$work/src"
    local options
    mapfile -t options < <(configure_options)
    [[ ${#options[@]} -gt 0 ]] || { echo "image-context: no cmake -S /src configure found in $name" >&2; exit 1; }
    # The trainer image installs none of the packages only the command line needs: configure
    # as if this machine had none of them either, so a trainer build that reaches for one
    # fails here, not in the image's build.
    if [[ $name == Dockerfile.trainer ]]; then
        options+=(-DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON -DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON)
    fi
    if ! cmake -S "$work/src" -B "$work/build" "${options[@]}" >"$work/configure.log" 2>&1; then
        cat "$work/configure.log" >&2
        echo "image-context: the image's configure (${options[*]}) fails on what" \
            "$name copies ($(copy_sources | paste -sd ' ')): copy what the build needs there," \
            "or keep the image's build from needing it" >&2
        exit 1
    fi
    echo "image-context: ok: the image's configure (${options[*]}) passes on what $name copies: $(copy_sources | paste -sd ' ')" >&2
}

case "${1:-}" in
    copy)
        [[ $# -eq 2 ]] || { echo "usage: scripts/image-context.sh [-f DOCKERFILE] copy DIR" >&2; exit 2; }
        copy_into "$2"
        ;;
    check) check ;;
    *)
        echo "usage: scripts/image-context.sh [-f DOCKERFILE] copy DIR | check" >&2
        exit 2
        ;;
esac
