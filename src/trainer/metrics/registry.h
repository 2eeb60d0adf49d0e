#pragma once

// What kftrain-trainer exports to Prometheus: counters, gauges and histograms of one rank,
// updated by the step loop and read by the metrics server's thread. An update holds a mutex
// for a few additions and a read copies the values under it, so the step loop never waits
// for a scrape's socket.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::trainer::metrics {

// A Prometheus histogram: cumulative counts are computed when it is exposed.
struct Histogram {
    std::vector<double> bounds;    // upper bounds, ascending; +Inf is implied
    std::vector<uint64_t> counts;  // observations per bucket (not cumulative), bounds + 1
    double sum = 0;
    uint64_t count = 0;

    explicit Histogram(std::vector<double> upper_bounds = {});
    void observe(double value);
};

// The values of one rank at one moment.
struct Snapshot {
    double samples = 0;  // trained by this rank (counter)
    double steps = 0;    // trained by this rank (counter)
    std::optional<double> loss, accuracy, lr, epoch, progress, eta_s;  // set at progress points
    std::optional<double> eval_loss, eval_accuracy;                    // set at evaluations
    int world_size = 1;
    Histogram step_s;        // a whole training step, by the host's clock
    Histogram allreduce_s;   // the step's wait for the gradients' all-reduce
    Histogram checkpoint_s;  // one checkpoint written (rank 0)
};

// The progress gauges, as a progress line reports them.
struct ProgressGauges {
    double loss = 0, accuracy = 0, lr = 0;
    double epoch = 0;     // epochs trained, fractional
    double progress = 0;  // steps done over steps planned, 0..1
    double eta_s = 0;
};

// Return the bucket bounds of the step and all-reduce histograms (seconds).
std::vector<double> step_buckets();
// Return the bucket bounds of the checkpoint histogram (seconds).
std::vector<double> checkpoint_buckets();

class TrainerMetrics {
  public:
    TrainerMetrics();
    // Count one step of this rank: its samples, its seconds and its all-reduce wait.
    void observe_step(double step_s, double allreduce_s, int64_t samples);
    void observe_checkpoint(double seconds);
    void set_progress(const ProgressGauges& gauges);
    void set_eval(double loss, double accuracy);
    void set_world_size(int world);
    Snapshot snapshot() const;

  private:
    mutable std::mutex m_mutex;
    Snapshot m_values;
};

}  // namespace kftrain::trainer::metrics
