#include "estimate/model.h"

#include <algorithm>
#include <numeric>

#include "estimate/running_cost.h"

namespace kftrain::estimate {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// Return the first index whose key is smallest (ties go to the earlier size).
template <typename Key>
std::size_t index_of_min(const std::vector<SizeEstimate>& sizes, Key key) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < sizes.size(); ++i) {
        if (clearly_less(key(sizes[i]), key(sizes[best]))) {
            best = i;
        }
    }
    return best;
}

}  // namespace

bool clearly_less(double a, double b) {
    constexpr double k_tie = 1e-9;  // relative difference below which two figures are equal
    return a < b * (1 - k_tie);
}

double ring_allreduce_s(int64_t bytes, int world, double bytes_per_s, double latency_s) {
    if (world <= 1) {
        return 0;
    }
    const double hops = 2.0 * (world - 1);
    return hops / world * static_cast<double>(bytes) / bytes_per_s + hops * latency_s;
}

int64_t checkpoint_count(bool checkpoints, int64_t every, int64_t steps_per_epoch, int epochs) {
    if (!checkpoints || epochs <= 0) {
        return 0;
    }
    int64_t count = epochs;
    if (every > 0 && steps_per_epoch > 0) {
        // Epoch k's last step, k x steps_per_epoch, is a multiple of every when k is a multiple
        // of every / gcd(steps_per_epoch, every); that checkpoint is the epoch's own.
        const int64_t both = every / std::gcd(steps_per_epoch, every);
        count += steps_per_epoch * epochs / every - epochs / both;
    }
    return count;
}

SizeEstimate estimate_size(const EstimateInput& in, int replicas) {
    SizeEstimate s;
    s.replicas = replicas;
    s.world_size = replicas * in.procs_per_replica;
    s.inter_node = in.links.replicas_per_node > 0 && replicas > in.links.replicas_per_node;
    const double bandwidth =
        s.inter_node ? in.links.inter_node_bytes_per_s : in.links.intra_node_bytes_per_s;
    s.global_batch = int64_t{in.batch_size} * s.world_size;
    // DistributedSampler without drop_last: ceil(samples / world) per process.
    s.steps_per_epoch = ceil_div(ceil_div(in.samples, s.world_size), in.batch_size);
    const auto measured =
        std::find_if(in.measured_steps.begin(), in.measured_steps.end(),
                     [&](const MeasuredStep& m) { return m.world_size == s.world_size; });
    if (measured != in.measured_steps.end()) {
        s.step_measured = true;
        s.compute_s = measured->compute_s;
        s.allreduce_s = measured->allreduce_s;
        s.step_s = measured->step_s;
        s.spread = measured->spread;
        s.hidden_s = std::max(0.0, s.compute_s + s.allreduce_s - s.step_s);
    } else {
        s.compute_s = in.step.compute_s;
        s.allreduce_s =
            ring_allreduce_s(in.step.gradient_bytes, s.world_size, bandwidth, in.links.latency_s);
        s.hidden_s = std::min(in.step.overlap_fraction * s.allreduce_s, in.step.backward_s);
        s.step_s = s.compute_s + s.allreduce_s - s.hidden_s;
    }
    s.epoch_s = static_cast<double>(s.steps_per_epoch) * s.step_s;
    // The test set is dealt round-robin: the slowest process evaluates ceil(samples / world).
    s.eval_s =
        static_cast<double>(ceil_div(in.run.eval_samples, s.world_size)) * in.run.eval_s_per_sample;
    s.checkpoints =
        checkpoint_count(in.run.checkpoints, in.run.checkpoint_every, s.steps_per_epoch, in.epochs);
    s.checkpoint_s = static_cast<double>(s.checkpoints) * in.run.checkpoint_s;
    s.rendezvous_s = s.world_size > 1 ? in.links.rendezvous_s : 0;
    s.total_s = in.startup_s + s.rendezvous_s + in.run.warmup_extra_s +
                in.epochs * (s.epoch_s + s.eval_s) + s.checkpoint_s;
    if (in.price_per_replica_hour) {
        s.cost = cost_so_far(s.total_s, replicas, *in.price_per_replica_hour);
    }
    if (!s.step_measured) {
        s.spread = in.compute_spread;
    }
    set_range(s, in.unmeasured_s);
    return s;
}

void set_range(SizeEstimate& s, double unmeasured_s) {
    s.total_range = time_range(s.total_s, unmeasured_s, s.spread);
    s.cost_range.reset();
    if (s.total_range && s.cost) {
        s.cost_range = scaled_range(*s.total_range, s.total_s, *s.cost);
    }
}

Estimate rank_sizes(std::vector<SizeEstimate> sizes, double one_replica_s, bool priced) {
    Estimate e;
    for (SizeEstimate& s : sizes) {
        s.speedup = s.total_s > 0 ? one_replica_s / s.total_s : 1.0;
        s.efficiency = s.speedup / s.replicas;
    }
    e.sizes = std::move(sizes);
    if (e.sizes.empty()) {
        return e;
    }
    e.fastest = index_of_min(e.sizes, [](const SizeEstimate& s) { return s.total_s; });
    if (priced) {
        e.cheapest = index_of_min(e.sizes, [](const SizeEstimate& s) { return *s.cost; });
    }
    return e;
}

Estimate estimate(const EstimateInput& input) {
    std::vector<SizeEstimate> sizes;
    for (int replicas : input.replicas) {
        sizes.push_back(estimate_size(input, replicas));
    }
    return rank_sizes(std::move(sizes), estimate_size(input, 1).total_s,
                      input.price_per_replica_hour.has_value());
}

}  // namespace kftrain::estimate
