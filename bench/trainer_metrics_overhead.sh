#!/usr/bin/env bash
# What serving Prometheus metrics costs the trainer: the same runs as
# bench/trainer_throughput.sh (two epochs of synthetic samples, samples/s of the whole run and
# of the second epoch's steps), without metrics and with --metrics-port while a scraper reads
# every rank's /metrics twice a second (Prometheus' default interval is 15 s: this is 30 times
# harsher). Each figure is the median of RUNS runs, the two configurations taken in turn.
#
#   bench/trainer_metrics_overhead.sh [BUILD_DIR] [MODEL] [SAMPLES] [BATCH] [RUNS]
#   bench/trainer_metrics_overhead.sh build mnist-cnn 4096 32 5
set -euo pipefail
source "$(dirname "$0")/free_port.sh"
source "$(dirname "$0")/trainer_log.sh"

build=${1:-build}
model=${2:-mnist-cnn}
samples=${3:-4096}
batch=${4:-32}
runs=${5:-5}
trainer="$build/kftrain-trainer"
[[ -x "$trainer" ]] || { echo "trainer_metrics_overhead: $trainer not found (build it first)" >&2; exit 2; }
cores=$(nproc)
half=$(( cores / 2 > 0 ? cores / 2 : 1 ))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

common=(--model "$model" --samples "$samples" --epochs 2 --log-format json --log-every 100000)

scrape() {  # read each URL twice a second until the file $1 disappears; count the answers
    python3 - "$@" <<'PY'
import os, sys, time, urllib.request
flag, urls = sys.argv[1], sys.argv[2:]
answered = 0
while os.path.exists(flag):
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                answered += r.status == 200 and b"kftrain_samples_total" in r.read()
        except OSError:
            pass  # not up yet, or gone
    time.sleep(0.5)
print(answered, file=sys.stderr)
PY
}

# Start `ranks` ranks on 127.0.0.1 with `threads` threads each, with metrics (1) or without (0),
# scraping every rank's /metrics while they train; print rank 0's "whole epoch2" rates.
run_ranks() {  # metrics ranks threads
    local port pids=() urls=()
    port=$(free_port)
    for ((r = 0; r < $2; r++)); do
        local flags=()
        if (($1)); then
            local mport
            mport=$(free_port)
            flags=(--metrics-port "$mport")
            urls+=("http://127.0.0.1:$mport/metrics")
        fi
        MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$2 RANK=$r \
            "$trainer" "${common[@]}" --threads "$3" --batch-size "$batch" "${flags[@]}" \
            >"$out/rank$r.log" &
        pids+=($!)
    done
    if (($1)); then
        touch "$out/scraping"
        scrape "$out/scraping" "${urls[@]}" 2>>"$out/answered" &
    fi
    wait "${pids[@]}"
    rm -f "$out/scraping"
    wait
    rate "$out/rank0.log"
}

median() {  # numbers on standard input -> their median
    sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "kftrain-trainer with and without --metrics-port: model $model, $samples synthetic samples,"
echo "2 epochs, batch $batch per rank, $cores cores; median of $runs runs, taken in turn"
echo "command: $0 $build $model $samples $batch $runs"
: >"$out/answered"
printf '%-66s %10s %10s\n' "configuration" "whole run" "epoch 2"
for shape in "1 $cores" "2 $half"; do
    read -r ranks threads <<<"$shape"
    : >"$out/off"; : >"$out/on"
    for ((i = 0; i < runs; i++)); do
        run_ranks 0 "$ranks" "$threads" >>"$out/off"
        run_ranks 1 "$ranks" "$threads" >>"$out/on"
    done
    what="1 process, $threads threads"
    ((ranks == 1)) || what="2 processes, $threads thread each, shared memory"
    for how in off on; do
        label="$what, no metrics"
        [[ $how == off ]] || label="$what, --metrics-port, scraped 2/s"
        printf '%-66s %10.0f %10.0f\n' "$label" \
            "$(awk '{print $1}' "$out/$how" | median)" "$(awk '{print $2}' "$out/$how" | median)"
    done
done
echo "scrapes answered: $(awk '{s += $1} END {print s}' "$out/answered")"
