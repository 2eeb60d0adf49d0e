// Write N records of finished jobs, as kftrain keeps them, under $XDG_STATE_HOME: the input of
// bench/history_scale.sh. Jobs are spread over 20 namespaces and 5 users, one in 5 failed,
// one in 50 not priced, finished over the last year, each with a small part after its summary.
//   kftrain-bench-history-records N [CONTEXT]
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "history/store.h"
#include "util/time_text.h"

namespace {

kftrain::history::Record bench_record(int i, const std::string& context, std::time_t now) {
    kftrain::history::Record record;
    auto& s = record.summary;
    s.context = context;
    s.namespace_ = "team-" + std::to_string(i % 20);
    s.name = "job-" + std::to_string(i);
    s.uid = "00000000-0000-4000-8000-" + std::to_string(100000000000 + i);
    s.kind = i % 7 == 0 ? "TrainJob" : "PyTorchJob";
    s.phase = i % 5 == 0 ? "Failed" : "Succeeded";
    s.reason = s.phase == "Failed" ? "PyTorchJobFailed" : "PyTorchJobSucceeded";
    const std::time_t finished = now - static_cast<std::time_t>(i) * 3153;  // a year over 10,000
    s.run_s = 600.0 + (i % 97) * 60;
    s.started = kftrain::util::format_timestamp(finished - static_cast<std::time_t>(*s.run_s));
    s.created = s.started;
    s.finished = kftrain::util::format_timestamp(finished);
    s.recorded = s.finished;
    s.replicas = 2 + i % 8;
    s.queue = i % 3 == 0 ? "gpu-queue" : "";
    s.submitted_by = "user-" + std::to_string(i % 5);
    s.labels = {{"kftrain.io/submitted-by", s.submitted_by}, {"team", s.namespace_}};
    s.cost.currency = "USD";
    if (i % 50 == 0) {
        s.cost.unpriced = "GPU type unknown";
    } else {
        s.cost.per_hour = 0.08 * s.replicas;
        s.cost.amount = s.cost.per_hour * *s.run_s / 3600;
    }
    s.why = s.phase == "Failed" ? "master-0 exited with code 1: CUDA out of memory" : "";
    record.job = {{"kind", s.kind}, {"metadata", {{"name", s.name}, {"namespace", s.namespace_}}}};
    return record;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kftrain-bench-history-records N [CONTEXT]\n");
        return 2;
    }
    const int count = std::atoi(argv[1]);
    const std::string context = argc > 2 ? argv[2] : "bench";
    const std::time_t now = std::time(nullptr);
    for (int i = 0; i < count; ++i) {
        auto written = kftrain::history::write_record(bench_record(i, context, now));
        if (!written) {
            std::fprintf(stderr, "%s\n", written.error().c_str());
            return 1;
        }
    }
    return 0;
}
