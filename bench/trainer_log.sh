# Sourced by the benchmarks that run kftrain-trainer with --log-format json.
rate() {  # print samples_per_sec of the finish event and of the last epoch in a JSON log
    python3 -c 'import json,sys
rates = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] in ("finish", "epoch"):
        rates[e["event"]] = e["samples_per_sec"]
print("%10.0f %10.0f" % (rates["finish"], rates["epoch"]))' "$1"
}
