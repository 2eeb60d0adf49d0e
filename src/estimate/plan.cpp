#include "estimate/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "estimate/builtin_profile.h"
#include "estimate/device.h"
#include "estimate/network_shape.h"
#include "estimate/plan_parts.h"
#include "estimate/profile_median.h"
#include "util/time_text.h"

namespace kftrain::estimate {
namespace {

// Describe a measured profile for the assumption lines.
std::string measured_source(const Profile& p) {
    return fmt::format("measured: {} ({} on {}, batch {}, {} threads, world size {})", p.source,
                       p.model, p.dataset, p.batch_size, p.threads, p.world_size);
}

// Build a profile from FLOPs for one process: the replica's assumed speed shared by its
// processes.
util::Result<Profile> builtin_for_job(const JobFacts& job, Plan& plan) {
    const double cores = job.cpu_cores > 0 ? job.cpu_cores : 1.0;
    auto speed = replica_speed(plan.device, plan.gpus_per_replica, cores);
    if (!speed) {
        return util::error(fmt::format(
            "--gpu: no built-in speed for this GPU type (known: {}); measure a profile and "
            "pass --profile (got {})",
            fmt::join(known_gpus(), ", "), plan.device));
    }
    const int procs = std::max(job.procs_per_replica, 1);
    speed->flops /= procs;
    if (procs > 1) {
        speed->description += fmt::format(", shared by {} processes", procs);
    }
    const std::string value = speed->flops >= 1e12
                                  ? fmt::format("{:.3g} TFLOP/s", speed->flops / 1e12)
                                  : fmt::format("{:.3g} GFLOP/s", speed->flops / 1e9);
    plan.assumptions.push_back({"device speed", value, "assumed: " + speed->description});
    return builtin_profile(job.model, job.dataset, job.batch_size, *speed);
}

// Note when a measured CPU profile ran with other threads than the job's processes get.
void note_threads(const JobFacts& job, const Profile& p, Plan& plan) {
    if (job.gpus > 0 || job.cpu_cores <= 0 || p.threads <= 0) {
        return;
    }
    const double per_process = job.cpu_cores / std::max(job.procs_per_replica, 1);
    if (std::abs(per_process - p.threads) >= 0.5) {
        plan.assumptions.push_back(
            {"threads", fmt::format("{} measured, {:g} cores per process", p.threads, per_process),
             "not rescaled: measure the profile with the job's cores for a better estimate"});
    }
}

// Take the measured profile, scaled to the job's batch size, or build one.
util::Result<Profile> resolve_profile(const JobFacts& job, const std::optional<Profile>& measured,
                                      Plan& plan) {
    if (!measured) {
        return builtin_for_job(job, plan);
    }
    if (measured->model != job.model) {
        return util::error(
            fmt::format("--profile: {} was measured with model {}, but the job trains {} (got {})",
                        measured->source, measured->model, job.model, measured->model));
    }
    Profile p = *measured;
    note_threads(job, p, plan);
    if (p.batch_size != job.batch_size) {
        const double scale = static_cast<double>(job.batch_size) / p.batch_size;
        p.compute_s_per_step *= scale;
        p.forward_s_per_step *= scale;
        p.backward_s_per_step *= scale;
        p.warmup_s *= scale;
        for (double& block : p.compute_s_blocks) {
            block *= scale;
        }
        plan.assumptions.push_back(
            {"batch scaling", fmt::format("x{:.3g}", scale),
             fmt::format("assumed: compute grows linearly from the profile's batch {} to the "
                         "job's {}",
                         measured->batch_size, job.batch_size)});
    }
    return p;
}

// Order the measured profiles by world size, one per size: repeats measured at one size
// become their median (median_profile). Refuse profiles of two models.
util::Result<std::vector<Profile>> by_world_size(std::vector<Profile> profiles) {
    std::stable_sort(profiles.begin(), profiles.end(), [](const Profile& a, const Profile& b) {
        return a.world_size < b.world_size;
    });
    std::vector<Profile> sizes;
    for (auto first = profiles.begin(); first != profiles.end();) {
        if (first->model != profiles.front().model) {
            return util::error(fmt::format(
                "--profile: {} was measured with model {}, {} with {}; give profiles of one "
                "model (got {})",
                first->source, first->model, profiles.front().source, profiles.front().model,
                first->source));
        }
        auto last = std::find_if(first, profiles.end(), [&](const Profile& p) {
            return p.world_size != first->world_size;
        });
        auto median = median_profile({first, last});
        if (!median.ok()) {
            return util::error(median.error());
        }
        sizes.push_back(*median);
        first = last;
    }
    return sizes;
}

// Take the step measured by each profile at world size 2 or more, for that size.
void resolve_measured_steps(const JobFacts& job, const std::vector<Profile>& profiles, Plan& plan) {
    for (const Profile& p : profiles) {
        if (p.world_size < 2 || p.samples_per_sec <= 0) {
            continue;
        }
        const std::string name = fmt::format("step at world size {}", p.world_size);
        if (p.batch_size != job.batch_size) {
            plan.assumptions.push_back(
                {name, "modelled",
                 fmt::format("{} not used: measured at batch {}, the job's is {}", p.source,
                             p.batch_size, job.batch_size)});
            continue;
        }
        const double step_s = p.batch_size * static_cast<double>(p.world_size) / p.samples_per_sec;
        const MeasuredStep step{p.world_size, p.compute_s_per_step, p.allreduce_s_per_step, step_s,
                                block_spread(p.step_s_blocks, step_s)};
        plan.input.measured_steps.push_back(step);
        plan.assumptions.push_back(
            {name, util::format_duration(step.step_s),
             fmt::format("measured: {} (compute {}, all-reduce {} alone, overlapped)", p.source,
                         util::format_duration(step.compute_s),
                         util::format_duration(step.allreduce_s))});
    }
}

// Return the bytes one rank all-reduces per step and why: the gradients, half of them where
// trainer.gradCompression puts 16-bit values on the wire. Replicas of a --local CPU job sum
// through shared memory, which carries fp32 only; Gloo in libtorch 1.13 has no bf16, NCCL has.
std::pair<int64_t, std::string> wire_bytes(const JobFacts& job, const PlanFlags& flags,
                                           const Plan& plan, int64_t gradient_bytes) {
    const std::string& c = job.grad_compression;
    if (c != "fp16" && c != "bf16") {
        return {gradient_bytes, ""};
    }
    const bool gpu = plan.device != "cpu";
    const std::string why = fmt::format("trainer.gradCompression {}: ", c);
    if (flags.local && !gpu) {
        return {gradient_bytes,
                why + "not halved, the replicas share this machine's memory (fp32)"};
    }
    if (c == "bf16" && !gpu) {
        return {gradient_bytes, why + "not halved, Gloo in libtorch 1.13 sends it as fp32"};
    }
    return {gradient_bytes / 2, why + "half the gradients on the wire"};
}

// Fill the step cost from the profile and say where each part came from.
void resolve_step(const JobFacts& job, const PlanFlags& flags, const Profile& p, Plan& plan) {
    StepCost& step = plan.input.step;
    step.compute_s = p.compute_s_per_step;
    step.backward_s = p.backward_s_per_step;
    plan.input.compute_spread = block_spread(p.compute_s_blocks, p.compute_s_per_step);
    const auto [bytes, compression] = wire_bytes(job, flags, plan, p.gradient_bytes);
    step.gradient_bytes = bytes;
    // Overlap needs 2+ ranks: from this profile, else from the one measured at 2+ ranks.
    const Profile* overlap_from = p.overlap_fraction ? &p : nullptr;
    if (!overlap_from && plan.multi_rank && plan.multi_rank->overlap_fraction) {
        overlap_from = &*plan.multi_rank;
    }
    step.overlap_fraction = overlap_from ? *overlap_from->overlap_fraction : 0.0;
    const std::string source =
        p.measured ? measured_source(p)
                   : fmt::format(
                         "built-in {} profile: {} parameters, 3 x forward FLOPs / device "
                         "speed",
                         p.model, p.parameters);
    plan.assumptions.push_back(
        {"compute per step", util::format_duration(p.compute_s_per_step), source});
    const std::string gradients =
        p.measured ? source : fmt::format("{} FP32 parameters", p.parameters);
    plan.assumptions.push_back({"gradients per step",
                                fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6),
                                compression.empty() ? gradients : compression + "; " + gradients});
    plan.assumptions.push_back(
        {"all-reduce overlap", fmt::format("{:.0f}%", step.overlap_fraction * 100),
         overlap_from ? measured_source(*overlap_from)
                      : "none assumed: not measured (profile at world size 1 or built-in)"});
}

}  // namespace

const std::vector<int>& default_workers() {
    static const std::vector<int> k_workers = {1, 2, 4, 8, 16};
    return k_workers;
}

util::Result<Plan> make_plan(const JobFacts& job, const PlanFlags& flags,
                             const std::vector<Profile>& measured, const PriceCatalog& prices) {
    Plan plan;
    plan.job_replicas = job.replicas;
    if (auto status = resolve_device(job, flags, prices, plan); !status.ok()) {
        return util::error(status.error());
    }
    auto profiles = by_world_size(measured);
    if (!profiles.ok()) {
        return util::error(profiles.error());
    }
    for (const Profile& p : *profiles) {
        if (p.world_size > 1) {
            plan.multi_rank = p;
            break;
        }
    }
    auto profile = resolve_profile(
        job, profiles->empty() ? std::nullopt : std::optional<Profile>(profiles->front()), plan);
    if (!profile.ok()) {
        return util::error(profile.error());
    }
    plan.profile = *profile;
    resolve_step(job, flags, plan.profile, plan);
    resolve_measured_steps(job, *profiles, plan);
    if (auto status = resolve_sizes(job, flags, plan); !status.ok()) {
        return util::error(status.error());
    }
    resolve_run(job, plan);
    resolve_links(flags, prices, plan);
    resolve_price(job, prices, plan);
    return plan;
}

}  // namespace kftrain::estimate
