#include "trainer/metrics/registry.h"

#include <algorithm>
#include <utility>

namespace kftrain::trainer::metrics {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds(std::move(upper_bounds)), counts(bounds.size() + 1, 0) {}

void Histogram::observe(double value) {
    const auto slot = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
    counts[static_cast<std::size_t>(slot)] += 1;  // le is inclusive: value == bound counts in it
    sum += value;
    count += 1;
}

std::vector<double> step_buckets() {
    return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

std::vector<double> checkpoint_buckets() {
    return {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
}

TrainerMetrics::TrainerMetrics() {
    m_values.step_s = Histogram(step_buckets());
    m_values.allreduce_s = Histogram(step_buckets());
    m_values.checkpoint_s = Histogram(checkpoint_buckets());
}

void TrainerMetrics::observe_step(double step_s, double allreduce_s, int64_t samples) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_values.steps += 1;
    m_values.samples += static_cast<double>(samples);
    m_values.step_s.observe(step_s);
    m_values.allreduce_s.observe(allreduce_s);
}

void TrainerMetrics::observe_checkpoint(double seconds) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_values.checkpoint_s.observe(seconds);
}

void TrainerMetrics::set_progress(const ProgressGauges& gauges) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_values.loss = gauges.loss;
    m_values.accuracy = gauges.accuracy;
    m_values.lr = gauges.lr;
    m_values.epoch = gauges.epoch;
    m_values.progress = gauges.progress;
    m_values.eta_s = gauges.eta_s;
}

void TrainerMetrics::set_eval(double loss, double accuracy) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_values.eval_loss = loss;
    m_values.eval_accuracy = accuracy;
}

void TrainerMetrics::set_world_size(int world) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_values.world_size = world;
}

Snapshot TrainerMetrics::snapshot() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_values;
}

}  // namespace kftrain::trainer::metrics
