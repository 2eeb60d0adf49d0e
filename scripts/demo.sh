#!/usr/bin/env bash
# Run the README's main job: a 2-replica data-parallel training of mnist-cnn on
# this machine, on a synthetic MNIST-format data set, then show its status.
#
#   scripts/demo.sh BUILD_DIR
#
# BUILD_DIR holds the built kftrain and kftrain-trainer (make demo builds them).
# The data set and checkpoints go to BUILD_DIR/demo; the job's state and logs
# to $XDG_STATE_HOME/kftrain/jobs/mnist-local (default ~/.local/state/...).
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: scripts/demo.sh BUILD_DIR" >&2
    exit 2
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "$1" && pwd)"
kftrain="$build/kftrain"
trainer="$build/kftrain-trainer"
for program in "$kftrain" "$trainer"; do
    if [[ ! -x "$program" ]]; then
        echo "demo.sh: $program is not built (run: make demo)" >&2
        exit 2
    fi
done

# The job's volumes map /data and /checkpoints to data/ and checkpoints/ under
# the directory kftrain submit runs in.
work="$build/demo"
mkdir -p "$work"
cd "$work"
rm -rf checkpoints
if [[ ! -f data/mnist/train-images-idx3-ubyte ]]; then
    echo "# Making a synthetic MNIST-format data set in $work/data/mnist"
    "$trainer" make-dataset mnist --out data/mnist --samples 6000
fi

echo "# kftrain submit -f examples/mnist-local.yaml --local --follow"
status=0
"$kftrain" submit -f "$repo/examples/mnist-local.yaml" --local --replace --follow || status=$?

echo
echo "# kftrain status mnist-local --local"
"$kftrain" status mnist-local --local
exit "$status"
