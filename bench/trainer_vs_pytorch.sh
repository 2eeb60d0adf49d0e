#!/usr/bin/env bash
# kftrain-trainer against PyTorch's Python DDP (Debian's python3-torch, the same libtorch) on
# the same IDX data, model, batch and threads: 1 rank x 1 thread, 2 ranks x 1 thread (on
# 127.0.0.1: Gloo for PyTorch, shared memory for the trainer) and 1 rank x 2 threads. Rounds
# interleave the two programs (their order swapped every round) so that a busy spell of the
# machine hits both. Prints the samples/s of every epoch (global, training steps only, as the
# trainer's `epoch` event), the peak RSS of each rank, then per configuration the medians over
# rounds and the ratio trainer / PyTorch for epoch 1 and for the later epochs, and each
# program's 2 ranks against twice its 1 rank (per round, then the median). Install the
# reference with `scripts/setup.sh --bench`.
#
#   bench/trainer_vs_pytorch.sh [BUILD_DIR] [MODEL] [SAMPLES] [BATCH] [EPOCHS] [ROUNDS] [CONFIGS]
#                               [PYTORCH_LAYOUT]
#   bench/trainer_vs_pytorch.sh build mnist-cnn 6144 32 3 3
#   bench/trainer_vs_pytorch.sh build resnet18 384 32 2 5 1x2   # only 1 rank x 2 threads
#   bench/trainer_vs_pytorch.sh build mnist-cnn 3072 32 2 5 1x1,2x1,1x2 channels-last
# CONFIGS: RANKSxTHREADS,... (default 1x1,2x1,1x2). PYTORCH_LAYOUT: PyTorch's memory format,
# contiguous (its default, and this script's) or channels-last (as the trainer lays out
# convolutions on the CPU).
set -euo pipefail
source "$(dirname "$0")/free_port.sh"

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
model=${2:-mnist-cnn}
samples=${3:-6144}
batch=${4:-32}
epochs=${5:-3}
rounds=${6:-3}
config_list=${7:-1x1,2x1,1x2}
pytorch_layout=${8:-contiguous}
trainer="$build/kftrain-trainer"
python=${PYTHON:-/usr/bin/python3}
[[ -x "$trainer" ]] || { echo "trainer_vs_pytorch: $trainer not found (build it first)" >&2; exit 2; }
"$python" -c 'import torch' 2>/dev/null ||
    { echo "trainer_vs_pytorch: $python cannot import torch (scripts/setup.sh --bench)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$trainer" make-dataset mnist --out "$out/data" --samples "$samples" >/dev/null

# Run one rank (argv after the log and RSS files), its peak RSS in KiB written to the RSS file.
run_rank() {
    local log=$1 rss=$2
    shift 2
    "$python" -c 'import os, resource, subprocess, sys
with open(sys.argv[1], "w") as log:
    code = subprocess.call(sys.argv[3:], stdout=log)
open(sys.argv[2], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)' "$log" "$rss" "$@"
}

# Run one configuration of one program: prog ranks threads tag; logs in $out/tag.rankR.
run_config() {
    local prog=$1 ranks=$2 threads=$3 tag=$4 port r
    port=$(free_port)
    local -a cmd
    if [[ $prog == trainer ]]; then
        cmd=("$trainer" --model "$model" --dataset mnist --data-dir "$out/data" --epochs "$epochs"
             --batch-size "$batch" --threads "$threads" --log-format json --log-every 1000000)
    else
        cmd=("$python" "$here/pytorch_ddp.py" --model "$model" --data-dir "$out/data"
             --epochs "$epochs" --batch-size "$batch" --threads "$threads"
             --memory-format "$pytorch_layout")
    fi
    for ((r = 0; r < ranks; r++)); do
        OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads MASTER_ADDR=127.0.0.1 \
            MASTER_PORT=$port WORLD_SIZE=$ranks RANK=$r \
            run_rank "$out/$tag.rank$r.log" "$out/$tag.rank$r.rss" "${cmd[@]}" &
    done
    wait
}

configs=()  # "ranks threads"
IFS=, read -r -a config_words <<<"$config_list"
for word in "${config_words[@]}"; do
    [[ $word =~ ^([12])x([12])$ ]] ||
        { echo "trainer_vs_pytorch: CONFIGS: want RANKSxTHREADS,... of 1 or 2 (got $word)" >&2; exit 2; }
    configs+=("${BASH_REMATCH[1]} ${BASH_REMATCH[2]}")
done
[[ $pytorch_layout == contiguous || $pytorch_layout == channels-last ]] ||
    { echo "trainer_vs_pytorch: PYTORCH_LAYOUT: want contiguous or channels-last (got $pytorch_layout)" >&2; exit 2; }
echo "kftrain-trainer vs PyTorch DDP: $model, $samples IDX samples, batch $batch per rank," \
    "$epochs epochs, $rounds rounds, $(nproc) cores, PyTorch $pytorch_layout"
echo "command: $0 $*"
for ((round = 1; round <= rounds; round++)); do
    for c in "${configs[@]}"; do
        read -r ranks threads <<<"$c"
        order=(pytorch trainer)
        ((round % 2 == 0)) && order=(trainer pytorch)
        for prog in "${order[@]}"; do
            run_config "$prog" "$ranks" "$threads" "$prog.r${ranks}t$threads.round$round"
        done
    done
done

"$python" - "$out" "$rounds" "${configs[@]}" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
configs = [tuple(int(v) for v in c.split()) for c in sys.argv[3:]]
def epochs(tag):
    rates = []
    for line in open(f"{out}/{tag}.rank0.log"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("event") == "epoch":
            rates.append(e["samples_per_sec"])
    return rates
def rss(tag, ranks):
    return [int(open(f"{out}/{tag}.rank{r}.rss").read()) // 1024 for r in range(ranks)]
print("\nper round: samples/s of each epoch; peak RSS of each rank in MiB")
summary = []
for ranks, threads in configs:
    name = f"{ranks} rank{'s' if ranks > 1 else ''} x {threads} thread{'s' if threads > 1 else ''}"
    med = {}
    for prog in ("pytorch", "trainer"):
        per_round, mem = [], []
        for r in range(1, rounds + 1):
            tag = f"{prog}.r{ranks}t{threads}.round{r}"
            e, m = epochs(tag), rss(tag, ranks)
            per_round.append(e)
            mem.append(m)
            print(f"  {name:18} {prog:8} round {r}: epochs "
                  + " ".join(f"{v:7.0f}" for v in e) + "   RSS " + " ".join(f"{v}" for v in m))
        first = statistics.median(e[0] for e in per_round if e)
        rounds_later = [statistics.mean(e[1:]) if len(e) > 1 else float("nan") for e in per_round]
        later = statistics.median(rounds_later) \
            if all(len(e) > 1 for e in per_round) else float("nan")
        peak = max(max(m) for m in mem)
        med[prog] = (first, later, peak, rounds_later)
    summary.append(((ranks, threads), name, med))
print("\nmedians over rounds (samples/s), largest peak RSS of a rank (MiB), ratio trainer/pytorch")
print(f"{'configuration':18} {'pytorch e1':>10} {'later':>8} {'trainer e1':>10} {'later':>8}"
      f" {'ratio e1':>8} {'later':>6} {'RSS py':>7} {'RSS kf':>7}")
for _, name, m in summary:
    p, t = m["pytorch"], m["trainer"]
    print(f"{name:18} {p[0]:10.0f} {p[1]:8.0f} {t[0]:10.0f} {t[1]:8.0f}"
          f" {t[0] / p[0]:8.2f} {t[1] / p[1]:6.2f} {p[2]:7d} {t[2]:7d}")
by_config = {c: m for c, _, m in summary}
if (1, 1) in by_config and (2, 1) in by_config:
    one, two = by_config[(1, 1)], by_config[(2, 1)]
    # Each round's 2 ranks against twice its own 1 rank, run minutes apart: a slow spell of
    # the machine moves both, where a ratio of medians over rounds would mix spells.
    def scaling(prog):
        ratios = sorted(t / (2 * o) for o, t in zip(one[prog][3], two[prog][3]))
        return (f"{prog} {statistics.median(ratios):.0%}"
                f" (rounds {ratios[0]:.0%}-{ratios[-1]:.0%})")
    print("\n2 ranks against twice 1 rank in the same round (later epochs, median): "
          + ", ".join(scaling(prog) for prog in ("pytorch", "trainer")))
PY
