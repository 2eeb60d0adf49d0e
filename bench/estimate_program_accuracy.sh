#!/usr/bin/env bash
# How well does `kftrain estimate --measure` predict a whole run of a user's own program?
# examples/python-ddp/ddp.py (plain PyTorch DDP, Debian's python3-torch; it prints progress
# lines), or with PROGRAM python-tqdm examples/python-tqdm/train.py (a like training,
# unchanged: it only draws a tqdm bar), as a local PyTorchJob, one thread per replica: each round, measure it for MEASURE seconds at 1 and 2
# replicas (the measurement stops it there), predict the whole run at 1 and 2 replicas, then
# run it whole at each size (kftrain submit --local --follow: submit to the job's end, as the
# measurement counts it) and compare with the median of the rounds' whole runs. Each round
# also says whether its whole runs fell inside the range its own estimate printed
# (total_s_low..total_s_high), counting them: "inside the range: k of n".
#
#   bench/estimate_program_accuracy.sh [BUILD_DIR] [SAMPLES] [EPOCHS] [MEASURE] [ROUNDS] [PROGRAM]
#   bench/estimate_program_accuracy.sh build 400000 4 15s 1
#   bench/estimate_program_accuracy.sh build 400000 4 15s 3 python-tqdm
set -euo pipefail

build=${1:-build}
samples=${2:-400000}
epochs=${3:-4}
measure=${4:-15s}
rounds=${5:-1}
program=${6:-python-ddp}
kftrain="$(cd "$build" && pwd)/kftrain"
repo=$(cd "$(dirname "$0")/.." && pwd)
[[ -x "$kftrain" ]] || { echo "estimate_program_accuracy: $kftrain not found (build it first)" >&2; exit 2; }
/usr/bin/python3 -c 'import torch' 2>/dev/null ||
    { echo "estimate_program_accuracy: /usr/bin/python3 cannot import torch (scripts/setup.sh)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_STATE_HOME="$out/state" PATH="/usr/bin:$PATH"

case $program in
    python-ddp) command="[python3, $repo/examples/python-ddp/ddp.py]"
        args="[--epochs, \"$epochs\", --samples, \"$samples\", --batch-size, \"64\", --log-every, \"50\"]" ;;
    python-tqdm) command="[python3, $repo/examples/python-tqdm/train.py]"
        args="[--epochs, \"$epochs\", --samples, \"$samples\", --batch-size, \"64\"]" ;;
    *) echo "estimate_program_accuracy: PROGRAM is python-ddp or python-tqdm, not $program" >&2; exit 2 ;;
esac
cat >"$out/job.yaml" <<JOB
name: program-accuracy
backend: local
command: $command
args: $args
replicas: 2
nprocPerNode: "1"
resources:
  cpu: "1"
env:
  OMP_NUM_THREADS: "1"
JOB

now() { date +%s.%N; }

echo "kftrain estimate --measure accuracy: examples/$program, $samples samples x $epochs" \
    "epochs, batch 64 per replica, 1 thread per replica on $(nproc) cores, measured for" \
    "$measure per size, $rounds round(s); $(date -u +%Y-%m-%d)"
echo "command: $0 $*"
echo "predicted: kftrain estimate --measure --measure-replicas 1,2 --measure-seconds $measure (total)"
echo "measured: kftrain submit --local --follow, submit to the job's end, median of the rounds"
: >"$out/times1"
: >"$out/times2"
: >"$out/inside"
for ((round = 1; round <= rounds; round++)); do
    "$kftrain" estimate -f "$out/job.yaml" --measure --measure-replicas 1,2 \
        --measure-seconds "$measure" --workers 1,2 -o json >"$out/estimate-$round.json" 2>/dev/null
    for world in 1 2; do
        start=$(now)
        "$kftrain" submit -f "$out/job.yaml" --set replicas="$world" --follow >/dev/null 2>&1
        run_s=$(python3 -c "print($(now) - $start)")
        echo "$run_s" >>"$out/times$world"
        "$kftrain" delete program-accuracy --local >/dev/null
        python3 "$repo/bench/inside_range.py" "$out/estimate-$round.json" "$world" "$run_s" \
            "$round" >>"$out/inside"
    done
done
printf '%-9s %10s %10s %8s   %s\n' replicas predicted measured error "basis of the prediction"
for world in 1 2; do
    python3 - "$out" "$world" "$rounds" <<'PY'
import json, statistics, sys
out, world, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
predicted = statistics.median(
    json.load(open(f"{out}/estimate-{r}.json"))["sizes"][world - 1]["total_s"]
    for r in range(1, rounds + 1))
measured = statistics.median(float(t) for t in open(f"{out}/times{world}"))
e = json.load(open(f"{out}/estimate-1.json"))
basis = next(a["source"] for a in e["assumptions"] if a["name"] == f"at world size {world}")
print("%-9d %9.1fs %9.1fs %+7.0f%%   %s" % (world, predicted, measured,
                                           100 * (predicted - measured) / measured, basis))
PY
done
echo
echo "each round's estimate against its own whole runs:"
printf '%-6s %-9s %10s %-13s %10s  %s\n' round replicas predicted "(range)" measured verdict
cat "$out/inside"
echo "inside the range: $(grep -c ' inside ' "$out/inside" || true) of $(wc -l <"$out/inside")"
echo "load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
