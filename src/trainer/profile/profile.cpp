#include "trainer/profile/profile.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "trainer/version.h"
#include "util/stats.h"

namespace kftrain::trainer {

namespace key = wire::profile_key;

nlohmann::ordered_json profile_json(const Profile& p) {
    auto opt = [](const std::optional<double>& v) {
        return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    nlohmann::ordered_json j;
    j[key::k_model] = p.model;
    j[key::k_dataset] = p.dataset;
    j[key::k_parameters] = p.parameters;
    j[key::k_gradient_bytes] = p.gradient_bytes;
    j[key::k_batch_size] = p.batch_size;
    j[key::k_threads] = p.threads;
    j[key::k_world_size] = p.world_size;
    j[key::k_steps] = p.steps;
    j[key::k_warmup_steps] = p.warmup_steps;
    j[key::k_compute_s_per_step] = p.compute_s_per_step;
    j[key::k_compute_s_mean] = p.compute_s_mean;
    j[key::k_compute_s_stddev] = p.compute_s_stddev;
    j[key::k_compute_s_blocks] = p.compute_s_blocks;
    j[key::k_forward_s_per_step] = p.forward_s_per_step;
    j[key::k_backward_s_per_step] = p.backward_s_per_step;
    j[key::k_grad_compression] = p.grad_compression;
    j[key::k_backend] = p.backend;
    j[key::k_allreduce_bytes_per_step] = p.allreduce_bytes_per_step;
    j[key::k_allreduce_s_per_step] = p.allreduce_s_per_step;
    j[key::k_allreduce_bandwidth_bytes_per_s] = opt(p.allreduce_bandwidth_bytes_per_s);
    j[key::k_overlap_fraction] = opt(p.overlap_fraction);
    j[key::k_samples_per_sec] = p.samples_per_sec;
    j[key::k_step_s_blocks] = p.step_s_blocks;
    j[key::k_startup_s] = p.startup_s;
    j[key::k_warmup_s] = p.warmup_s;
    j[key::k_eval_s_per_sample] = p.eval_s_per_sample;
    j[key::k_eval_warmup_s] = p.eval_warmup_s;
    j[key::k_checkpoint_bytes] = p.checkpoint_bytes;
    j[key::k_checkpoint_s] = p.checkpoint_s;
    j[key::k_bucket_bytes] = p.bucket_bytes;
    j[key::k_buckets] = p.buckets;
    j[key::k_link_latency_s] = opt(p.link_latency_s);
    j[key::k_link_bytes_per_s] = opt(p.link_bytes_per_s);
    j[key::k_trainer_version] = k_trainer_version;
    return j;
}

double allreduce_bus_bandwidth(int64_t bytes, int world, double seconds) {
    if (world <= 1 || seconds <= 0) {
        return 0;
    }
    return 2.0 * (world - 1) / world * static_cast<double>(bytes) / seconds;
}

double overlap_fraction(double compute_s, double allreduce_s, double overlapped_step_s) {
    if (allreduce_s <= 0) {
        return 0;
    }
    const double hidden = compute_s + allreduce_s - overlapped_step_s;
    return std::clamp(hidden / allreduce_s, 0.0, 1.0);
}

StepStats step_stats(const std::vector<double>& seconds) {
    StepStats s;
    if (seconds.empty()) {
        return s;
    }
    const auto n = static_cast<double>(seconds.size());
    s.mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / n;
    if (seconds.size() > 1) {
        double squares = 0;
        for (double v : seconds) {
            squares += (v - s.mean) * (v - s.mean);
        }
        s.stddev = std::sqrt(squares / (n - 1));
    }
    return s;
}

bool warmed_up(const std::vector<double>& seconds, std::size_t min_steps, std::size_t max_steps) {
    const std::size_t n = seconds.size();
    if (n >= max_steps) {
        return true;
    }
    if (n < std::max<std::size_t>(min_steps, 2)) {
        return false;
    }
    const double last = seconds[n - 1], before = seconds[n - 2];
    return std::abs(last - before) <= 0.1 * std::max(last, before);
}

std::vector<double> block_means(const std::vector<double>& seconds, double block_s) {
    constexpr std::size_t k_min_blocks = 3;
    const std::size_t n = seconds.size();
    if (n < k_min_blocks) {
        return n == 0 ? std::vector<double>{} : std::vector<double>{step_stats(seconds).mean};
    }
    const double step = std::max(util::median(seconds), 1e-9);
    const auto per_block = std::clamp<std::size_t>(
        static_cast<std::size_t>(std::llround(block_s / step)), 1, n / k_min_blocks);
    const std::size_t blocks = n / per_block;
    std::vector<double> means;
    means.reserve(blocks);
    for (std::size_t b = 0; b < blocks; ++b) {
        const auto first = seconds.begin() + static_cast<std::ptrdiff_t>(b * per_block);
        const auto last =
            b + 1 == blocks ? seconds.end() : first + static_cast<std::ptrdiff_t>(per_block);
        means.push_back(std::accumulate(first, last, 0.0) / static_cast<double>(last - first));
    }
    return means;
}

double typical_step_s(const std::vector<double>& seconds, double block_s) {
    return util::median(block_means(seconds, block_s));
}

}  // namespace kftrain::trainer
