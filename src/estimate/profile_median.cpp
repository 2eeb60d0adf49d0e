#include "estimate/profile_median.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>

#include "util/stats.h"
#include "util/time_text.h"

namespace kftrain::estimate {

namespace {

// The median of one figure over the repeats.
template <typename Field>
double median_of(const std::vector<Profile>& repeats, Field field) {
    std::vector<double> values;
    values.reserve(repeats.size());
    for (const Profile& p : repeats) {
        values.push_back(p.*field);
    }
    return util::median(std::move(values));
}

// The median over the repeats that measured an optional figure; unset where none did.
std::optional<double> median_of(const std::vector<Profile>& repeats,
                                std::optional<double> wire::ProfileFields::*field) {
    std::vector<double> values;
    for (const Profile& p : repeats) {
        if (p.*field) {
            values.push_back(*(p.*field));
        }
    }
    return values.empty() ? std::nullopt : std::optional<double>(util::median(std::move(values)));
}

// Name the first field in which p was measured otherwise than first; empty if alike.
std::string differing_field(const Profile& first, const Profile& p) {
    struct Check {
        const char* name;
        std::string a, b;
    };
    const Check checks[] = {
        {"model", first.model, p.model},
        {"dataset", first.dataset, p.dataset},
        {"batch_size", std::to_string(first.batch_size), std::to_string(p.batch_size)},
        {"threads", std::to_string(first.threads), std::to_string(p.threads)},
        {"world_size", std::to_string(first.world_size), std::to_string(p.world_size)},
        {"grad_compression", first.grad_compression, p.grad_compression},
        {"backend", first.backend, p.backend},
        // Not bucket_bytes: --bucket-mb auto (the default) sizes the buckets from the link
        // it measures at each start, so repeats of one job differ in it as their real runs
        // will, and their all-reduce and overlap figures already reflect the sizes chosen.
    };
    for (const auto& c : checks) {
        if (c.a != c.b) {
            return fmt::format("{} {} and {}", c.name, c.a, c.b);
        }
    }
    return "";
}

}  // namespace

util::Result<Profile> median_profile(const std::vector<Profile>& repeats) {
    if (repeats.empty()) {
        return util::error("--profile: no profile to combine");
    }
    const Profile& first = repeats.front();
    if (repeats.size() == 1) {
        return first;
    }
    std::string sources = first.source;
    for (std::size_t i = 1; i < repeats.size(); ++i) {
        const Profile& p = repeats[i];
        if (auto field = differing_field(first, p); !field.empty()) {
            return util::error(
                fmt::format("--profile: {} and {} were both measured at world size {} but with {}; "
                            "repeated profiles of one world size must be measured alike (got {})",
                            first.source, p.source, first.world_size, field, p.source));
        }
        sources += ", " + p.source;
    }
    using F = wire::ProfileFields;
    Profile m = first;
    // How far the repeats disagree, so that a reader sees how steady the machine was.
    const auto [fastest, slowest] =
        std::minmax_element(repeats.begin(), repeats.end(), [](const Profile& a, const Profile& b) {
            return a.compute_s_per_step < b.compute_s_per_step;
        });
    m.source = fmt::format("median of {} (compute per step {} to {}): {}", repeats.size(),
                           util::format_duration(fastest->compute_s_per_step),
                           util::format_duration(slowest->compute_s_per_step), sources);
    m.compute_s_per_step = median_of(repeats, &F::compute_s_per_step);
    m.compute_s_mean = median_of(repeats, &F::compute_s_mean);
    m.compute_s_stddev = median_of(repeats, &F::compute_s_stddev);
    m.forward_s_per_step = median_of(repeats, &F::forward_s_per_step);
    m.backward_s_per_step = median_of(repeats, &F::backward_s_per_step);
    m.allreduce_s_per_step = median_of(repeats, &F::allreduce_s_per_step);
    m.allreduce_bandwidth_bytes_per_s = median_of(repeats, &F::allreduce_bandwidth_bytes_per_s);
    m.overlap_fraction = median_of(repeats, &F::overlap_fraction);
    m.samples_per_sec = median_of(repeats, &F::samples_per_sec);
    m.startup_s = median_of(repeats, &F::startup_s);
    m.warmup_s = median_of(repeats, &F::warmup_s);
    m.eval_s_per_sample = median_of(repeats, &F::eval_s_per_sample);
    m.eval_warmup_s = median_of(repeats, &F::eval_warmup_s);
    m.checkpoint_s = median_of(repeats, &F::checkpoint_s);
    // Every repeat's blocks together: how far apart they ran, within and between the repeats,
    // is the estimate's range.
    m.compute_s_blocks.clear();
    m.step_s_blocks.clear();
    for (const Profile& p : repeats) {
        m.compute_s_blocks.insert(m.compute_s_blocks.end(), p.compute_s_blocks.begin(),
                                  p.compute_s_blocks.end());
        m.step_s_blocks.insert(m.step_s_blocks.end(), p.step_s_blocks.begin(),
                               p.step_s_blocks.end());
    }
    return m;
}

}  // namespace kftrain::estimate
