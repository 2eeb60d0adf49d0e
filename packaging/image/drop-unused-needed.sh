#!/usr/bin/env bash
# Remove from a shared library the DT_NEEDED entries it uses no symbol from: what linking it
# with --as-needed would have done. Debian links libtorch_cpu without it, so it names OpenCV,
# FFmpeg and more (about 250 MB with what they need in turn) that it never calls, and the
# loader must find and load all of them. Only a library that defines none of the library's
# undefined dynamic symbols, and that no version requirement names, is dropped, and ldd -r
# must report no more undefined symbols afterwards than before.
#
#   drop-unused-needed.sh [--dry-run] LIBRARY...      needs nm, readelf, ldd and patchelf
set -euo pipefail

dry_run=""
if [[ ${1:-} == --dry-run ]]; then
    dry_run=1
    shift
fi

for lib in "$@"; do
    undefined=$(nm -D --undefined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | LC_ALL=C sort -u)
    versioned=$(readelf -V "$lib" | awk '/File:/ {print $4}')
    needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
    dropped=()
    # "name => /path (address)": where the loader finds each library this one needs.
    while read -r name arrow path _; do
        [[ $arrow == "=>" && $path == /* ]] || continue
        grep -qxF "$name" <<<"$needed" || continue
        grep -qxF "$name" <<<"$versioned" && continue
        defined=$(nm -D --defined-only "$path" | awk '{print $NF}' | sed 's/@.*//' | LC_ALL=C sort -u)
        if [[ -z $(LC_ALL=C comm -12 <(echo "$undefined") <(echo "$defined")) ]]; then
            dropped+=("$name")
        fi
    done < <(ldd "$lib")
    if [[ ${#dropped[@]} -gt 0 ]]; then
        echo "drop-unused-needed: $lib: ${dropped[*]}" >&2
        if [[ -z $dry_run ]]; then
            args=()
            for name in "${dropped[@]}"; do
                args+=(--remove-needed "$name")
            done
            before=$(ldd -r "$lib" 2>&1 | grep -c 'undefined symbol' || true)
            patchelf "${args[@]}" "$lib"
            after=$(ldd -r "$lib" 2>&1 | grep -c 'undefined symbol' || true)
            if [[ $after != "$before" ]]; then
                echo "drop-unused-needed: $lib: $after undefined symbols after, $before before" >&2
                exit 1
            fi
        fi
    fi
done
