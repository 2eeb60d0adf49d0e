#include "trainer/profile/benchmark.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <vector>

#include "trainer/checkpoint/io.h"
#include "trainer/loop/session.h"
#include "trainer/loop/step_sync.h"
#include "trainer/process/process_age.h"
#include "trainer/profile/profile.h"
#include "util/stats.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;
using SteadyClock = std::chrono::steady_clock;

// The batches of the first epoch, in training order and over again: a timed step takes
// its batch from the data set as training does, so that assembling it is counted too.
class BatchCycle {
  public:
    explicit BatchCycle(const Session& s)
        : m_order(s.epoch_indices(0)), m_batch(static_cast<std::size_t>(s.options.batch_size)) {}

    std::vector<int64_t> next() {
        if (m_next >= m_order.size()) {
            m_next = 0;
        }
        const auto first = m_order.begin() + static_cast<std::ptrdiff_t>(m_next);
        const auto end = m_order.begin() +
                         static_cast<std::ptrdiff_t>(std::min(m_order.size(), m_next + m_batch));
        m_next += m_batch;
        m_taken += 1;
        return {first, end};
    }
    // Return how many batches next() has given: the step count, for the learning rate.
    int64_t taken() const { return m_taken; }

  private:
    std::vector<int64_t> m_order;
    std::size_t m_batch;
    std::size_t m_next = 0;
    int64_t m_taken = 0;
};

// Run one training step, timed, on the next batch; add its phases to t and return its
// seconds.
double timed_step(Session& s, BatchCycle& batches, StepMetrics& metrics, StepPhases& t) {
    const double before = t.total();
    const auto indices = batches.next();
    s.train_step(indices, lr_at(s.schedule, batches.taken() - 1), metrics, &t);
    return t.total() - before;
}

// Return whether the steps recorded reach a log point, where training reads them.
bool at_log_point(const Session& s, const StepMetrics& metrics) {
    return static_cast<int64_t>(metrics.steps()) >= s.options.log_every;
}

// Time one step of compute alone, which ranks run in different numbers: its metrics are
// kept as training keeps them between log points, then dropped rather than summed.
double compute_step(Session& s, BatchCycle& batches, StepMetrics& metrics, StepPhases& t) {
    const double seconds = timed_step(s, batches, metrics, t);
    if (at_log_point(s, metrics)) {
        metrics.discard();
    }
    return seconds;
}

// Steps run before any is measured: caches, allocator and thread pools settle.
constexpr std::size_t k_min_warmup_steps = 3;
constexpr std::size_t k_max_warmup_steps = 30;
// Seconds of steps every measurement runs (at least --benchmark N steps), in blocks of
// about k_block_s whose median mean is the figure (typical_step_s): a spell of the machine
// shorter than half the measurement does not move it.
constexpr double k_min_measured_s = 1.5;
constexpr double k_block_s = 0.2;

// Run steps without counting them until their time settles; return each one's seconds.
std::vector<double> warm_up(Session& s, BatchCycle& batches, StepMetrics& metrics) {
    std::vector<double> seconds;
    StepPhases discarded;
    while (!warmed_up(seconds, k_min_warmup_steps, k_max_warmup_steps)) {
        seconds.push_back(compute_step(s, batches, metrics, discarded));
    }
    return seconds;
}

// Test samples an evaluation is timed on: enough batches of 256 for a steady figure.
constexpr int64_t k_eval_timed_samples = 1024;

// Time evaluation as every epoch's end runs it: the first time (cold: its larger batches
// allocate anew) and again, warm, per test sample.
void measure_eval(Session& s, Profile& p) {
    const int64_t n = std::min<int64_t>(s.test.size(), k_eval_timed_samples);
    if (n <= 0) {
        return;
    }
    std::vector<int64_t> indices(static_cast<std::size_t>(n));
    std::iota(indices.begin(), indices.end(), int64_t{0});
    auto t0 = s.synced_now();
    s.eval_sums(indices);
    const double cold = s.seconds_since(t0);
    auto t1 = s.synced_now();
    s.eval_sums(indices);
    const double warm = s.seconds_since(t1);
    p.eval_s_per_sample = warm / static_cast<double>(n);
    p.eval_warmup_s = std::max(0.0, cold - warm);
}

// Time a checkpoint as rank 0 writes it, in --checkpoint-dir (the job's volume) or else the
// temporary directory: the model's health checked on the last batch (a forward pass), then
// the write; the faster of two (the first also sets up serialization).
void measure_checkpoint(Session& s, BatchCycle& batches, Profile& p) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path dir = s.options.checkpoint_dir.empty() ? fs::temp_directory_path(ec)
                                                          : fs::path(s.options.checkpoint_dir);
    const auto path = dir / fmt::format(".kftrain-profile-{}.ckpt", ::getpid());
    const auto last_batch = s.batch(s.train, batches.next());
    double fastest = 0;
    for (int i = 0; i < 2; ++i) {
        const auto t0 = SteadyClock::now();
        s.unhealthy_state(last_batch);
        if (!checkpoint::save_checkpoint(path.string(), *s.model, *s.optimizer, {}).ok()) {
            return;  // unmeasured (0): the estimate assumes a disk speed and says so
        }
        const double took = std::chrono::duration<double>(SteadyClock::now() - t0).count();
        fastest = i == 0 ? took : std::min(fastest, took);
    }
    p.checkpoint_s = fastest;
    p.checkpoint_bytes = static_cast<int64_t>(fs::file_size(path, ec));
    fs::remove(path, ec);
}

Profile base_profile(Session& s) {
    Profile p;
    p.model = s.options.model;
    p.dataset = s.options.dataset;
    for (const auto& param : s.model->parameters()) {
        p.parameters += param.numel();
        p.gradient_bytes += param.numel() * static_cast<int64_t>(param.element_size());
    }
    p.batch_size = s.options.batch_size;
    p.threads = s.threads;
    p.world_size = s.world();
    p.steps = s.options.benchmark_steps;
    p.grad_compression = s.options.grad_compression;
    if (s.comm) {
        p.backend = comm::backend_name(s.comm->backend());
    }
    p.allreduce_bytes_per_step = s.reducer ? s.reducer->wire_bytes() : 0;
    if (s.reducer) {
        p.bucket_bytes = static_cast<int64_t>(s.bucket_bytes);
        p.buckets = static_cast<int64_t>(s.reducer->bucket_count());
    }
    if (s.link) {
        p.link_latency_s = s.link->latency_s;
        if (s.link->s_per_byte > 0) {
            p.link_bytes_per_s = 1.0 / s.link->s_per_byte;
        }
    }
    return p;
}

// Measure the all-reduce alone, then whole steps with it overlapping backward. Every rank
// runs the same number of collectives: the requested steps, after a fixed warm-up.
void measure_distributed(Session& s, BatchCycle& batches, Profile& p) {
    // At least --benchmark steps and about k_min_measured_s of them, the same count on every
    // rank (each collective needs all of them): from the mean of the ranks' compute times.
    const double mean_compute_s = s.sum_over_ranks({p.compute_s_per_step})[0] / s.world();
    const int64_t n =
        std::max(static_cast<int64_t>(std::ceil(k_min_measured_s / std::max(mean_compute_s, 1e-6))),
                 s.options.benchmark_steps);
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(n));
    s.comm->barrier();
    s.reducer->allreduce_all();  // the first one sets up Gloo's buffers
    for (int64_t i = 0; i < n; ++i) {
        const auto t0 = s.synced_now();
        s.reducer->allreduce_all();
        seconds.push_back(s.seconds_since(t0));
    }
    p.allreduce_s_per_step = typical_step_s(seconds, k_block_s);
    // Per byte on the wire (half the gradient bytes with a carried --grad-compression), as
    // the estimate uses it: it halves the bytes of a job whose gradients go compressed.
    p.allreduce_bandwidth_bytes_per_s =
        allreduce_bus_bandwidth(p.allreduce_bytes_per_step, s.world(), p.allreduce_s_per_step);
    s.reducer->set_enabled(true);
    // Whole steps as training runs them: gradients all-reduced behind backward, the ranks'
    // agreement on stopping in flight across every step, and their metrics summed over ranks
    // every --log-every steps.
    StopVote vote(s.comm.get());
    StepMetrics metrics;
    StepPhases overlapped;
    auto step = [&] {
        timed_step(s, batches, metrics, overlapped);
        vote.collect();
        if (at_log_point(s, metrics)) {
            metrics.take(s.comm.get(), false);  // which carries the stop flags, as in training
        } else {
            vote.launch();
        }
    };
    for (std::size_t i = 0; i < k_min_warmup_steps; ++i) {
        step();
    }
    vote.collect();
    s.comm->barrier();
    vote.launch();
    seconds.clear();
    for (int64_t i = 0; i < n; ++i) {
        const auto t1 = s.synced_now();
        step();
        seconds.push_back(s.seconds_since(t1));
    }
    vote.collect();
    p.step_s_blocks = block_means(seconds, k_block_s);
    const double step_s = util::median(p.step_s_blocks);
    p.overlap_fraction = overlap_fraction(p.compute_s_per_step, p.allreduce_s_per_step, step_s);
    p.samples_per_sec = p.batch_size * s.world() / step_s;
}

}  // namespace

int run_benchmark(Session& s) {
    Profile p = base_profile(s);
    p.startup_s = process::process_age_s().value_or(0);
    BatchCycle batches(s);
    s.model->train();
    if (s.reducer) {
        s.reducer->set_enabled(false);
    }
    // Compute alone (the reducer is off, so ranks need not run the same number of steps).
    StepMetrics metrics;
    const auto warmup = warm_up(s, batches, metrics);
    p.warmup_steps = static_cast<int64_t>(warmup.size());
    p.warmup_s = std::accumulate(warmup.begin(), warmup.end(), 0.0);
    StepPhases t;
    std::vector<double> seconds;
    double measured_s = 0;
    while (static_cast<int64_t>(seconds.size()) < p.steps || measured_s < k_min_measured_s) {
        seconds.push_back(compute_step(s, batches, metrics, t));
        measured_s += seconds.back();
    }
    p.steps = static_cast<int64_t>(seconds.size());
    const auto stats = step_stats(seconds);
    p.compute_s_blocks = block_means(seconds, k_block_s);
    p.compute_s_per_step = util::median(p.compute_s_blocks);
    p.compute_s_mean = stats.mean;
    p.compute_s_stddev = stats.stddev;
    // The phases in the typical step's proportions.
    p.forward_s_per_step = p.compute_s_per_step * t.forward / measured_s;
    p.backward_s_per_step = p.compute_s_per_step * t.backward / measured_s;
    p.samples_per_sec = p.batch_size / p.compute_s_per_step;
    measure_eval(s, p);
    if (s.comm) {
        measure_distributed(s, batches, p);
        s.comm->barrier();
    }
    if (s.rank() != 0) {
        return 0;
    }
    measure_checkpoint(s, batches, p);
    if (s.options.profile_out.empty()) {
        std::cout << profile_json(p).dump() << std::endl;
        return 0;
    }
    std::ofstream out(s.options.profile_out);
    out << profile_json(p).dump(2) << "\n";
    if (!out) {
        s.log->emit(event::k_error,
                    {{field::k_message, fmt::format("cannot write {}", s.options.profile_out)}});
        return 1;
    }
    return 0;
}

}  // namespace kftrain::trainer
