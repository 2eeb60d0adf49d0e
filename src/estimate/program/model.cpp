#include "estimate/program/model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "estimate/plan.h"
#include "estimate/plan_parts.h"
#include "util/stats.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::estimate {
namespace {

// The share of a ring all-reduce's bytes each process sends: 2(P - 1) / P, 1 at P = 2.
double ring_share(int world) {
    return world > 1 ? 2.0 * (world - 1) / world : 0.0;
}

// Fit a and c to the measured steps by least squares on relative errors (each size counts
// alike whatever its step); c is kept at 0 or more.
void fit_step(const std::vector<SizeMeasurement>& sizes, ProgramFit& fit) {
    double kk = 0, kg = 0, gg = 0, ks = 0, gs = 0;
    int multi = 0;
    for (const SizeMeasurement& m : sizes) {
        const double steps =
            m.steps_per_run ? static_cast<double>(*m.steps_per_run) : fit.steps(m.world_size);
        const double s = m.training_s / steps;
        const double w = 1 / (s * s);
        const double k =
            std::pow(static_cast<double>(m.world_size) / fit.reference_world, fit.exponent - 1);
        const double g = ring_share(m.world_size);
        kk += w * k * k;
        kg += w * k * g;
        gg += w * g * g;
        ks += w * k * s;
        gs += w * g * s;
        multi += m.world_size > 1 ? 1 : 0;
    }
    const double det = kk * gg - kg * kg;
    if (sizes.size() >= 2 && multi >= 1 && det > 1e-12 * kk * gg) {
        fit.compute_s = (ks * gg - gs * kg) / det;
        fit.communication_s = (kk * gs - kg * ks) / det;
        fit.communication_measured = true;
        if (fit.communication_s >= 0 && fit.compute_s > 0) {
            return;
        }
        fit.communication_clamped = true;
    }
    fit.communication_s = 0;
    fit.compute_s = ks / kk;
}

// Return the measured size nearest to world (the larger of two as near).
const SizeMeasurement& nearest(const ProgramProfile& p, int world) {
    const SizeMeasurement* best = &p.sizes.front();
    for (const SizeMeasurement& m : p.sizes) {
        if (std::abs(m.world_size - world) <= std::abs(best->world_size - world)) {
            best = &m;
        }
    }
    return *best;
}

const SizeMeasurement* measured_at(const ProgramProfile& p, int world) {
    for (const SizeMeasurement& m : p.sizes) {
        if (m.world_size == world) {
            return &m;
        }
    }
    return nullptr;
}

// One size of the table: measured where the program ran at it, else from the fit.
SizeEstimate program_size(const ProgramProfile& p, const ProgramFit& fit, const Plan& plan,
                          double overhead_s, bool local, int replicas) {
    SizeEstimate s;
    s.replicas = replicas;
    s.world_size = replicas * plan.input.procs_per_replica;
    s.inter_node = !local && replicas > 1;
    const SizeMeasurement* m = measured_at(p, s.world_size);
    const double steps =
        m && m->steps_per_run ? static_cast<double>(*m->steps_per_run) : fit.steps(s.world_size);
    s.compute_s = fit.compute_at(s.world_size);
    s.allreduce_s = fit.communication_at(s.world_size);
    double training = steps * (s.compute_s + s.allreduce_s);
    if (m) {
        s.step_measured = true;
        training = m->training_s;
    }
    s.extrapolated = !m && (s.world_size < p.sizes.front().world_size ||
                            s.world_size > p.sizes.back().world_size);
    s.step_s = training / steps;
    const auto epochs_of = [&]() -> double {
        const SizeMeasurement& n = m ? *m : nearest(p, s.world_size);
        return n.steps_per_run && n.steps_per_epoch
                   ? static_cast<double>(*n.steps_per_run) / static_cast<double>(*n.steps_per_epoch)
                   : 0.0;
    };
    const double epochs = epochs_of();
    if (fit.steps_known && epochs >= 1) {
        s.steps_per_epoch = static_cast<int64_t>(std::llround(steps / epochs));
        s.epoch_s = training / epochs;
    }
    s.rendezvous_s = 0;  // in the measured start-up
    s.total_s = overhead_s + nearest(p, s.world_size).startup_s + training;
    if (plan.input.price_per_replica_hour) {
        s.cost = replicas * *plan.input.price_per_replica_hour * s.total_s / 3600;
    }
    // Sizes not measured take the nearest measured size's spread.
    s.spread = m ? m->blocks : nearest(p, s.world_size).blocks;
    set_range(s, overhead_s);
    return s;
}

std::string percent(double fraction) {
    return fmt::format("{:.0f}%", fraction * 100);
}

// Return the time its measurements waited to start on the cluster (the median of the sizes),
// nullopt when measured on this machine.
std::optional<double> measured_wait(const ProgramProfile& p) {
    std::vector<double> waits;
    for (const SizeMeasurement& m : p.sizes) {
        if (m.waited_s) {
            waits.push_back(*m.waited_s);
        }
    }
    if (waits.empty()) {
        return std::nullopt;
    }
    return util::median(waits);
}

// The lines that say what was measured at each size.
void measured_assumptions(const ProgramProfile& p, std::vector<Assumption>& a) {
    std::vector<int> replicas;
    for (const SizeMeasurement& m : p.sizes) {
        replicas.push_back(m.replicas);
    }
    a.push_back({"measured", fmt::format("{} replicas", fmt::join(replicas, ", ")),
                 fmt::format("measured: {} ran `{}` {} at {}, at most {} each", p.source, p.program,
                             measured_where_text(p), p.measured_at,
                             util::format_duration(p.seconds_limit))});
    for (const SizeMeasurement& m : p.sizes) {
        a.push_back(
            {fmt::format("at world size {}", m.world_size),
             fmt::format("training {}, start-up {}", util::format_duration(m.training_s),
                         util::format_duration(m.startup_s)),
             fmt::format(
                 "measured: {} reports of {} over {}{}{}, rate spread {}{}", m.reports, m.basis,
                 util::format_duration(m.seconds), m.finished ? " (ran to its end)" : "",
                 m.waited_s ? fmt::format(" after {} to start", util::format_duration(*m.waited_s))
                            : "",
                 percent(m.spread),
                 m.too_few.empty() ? ""
                                   : "; too few to trust (" + m.too_few +
                                         "): measure longer (--measure-seconds) or report "
                                         "progress more finely")});
    }
}

// The lines under the table that say what was measured and what was assumed.
void program_assumptions(const ProgramProfile& p, const ProgramFit& fit, const JobFacts& job,
                         const PlanFlags& flags, double overhead_s, Plan& plan) {
    auto& a = plan.assumptions;
    measured_assumptions(p, a);
    const int r = fit.reference_world;
    a.push_back({"steps per run",
                 fit.steps_known ? fmt::format("{:.0f} at world size {}", fit.steps_reference, r)
                                 : "not reported",
                 fit.steps_known
                     ? "measured: steps_per_epoch x epochs the program reported"
                     : "the program reported no steps: a step is shown as the run's share"});
    a.push_back({"steps over world size", fmt::format("x ({} / P)^{:.2f}", r, fit.exponent),
                 fit.exponent_measured
                     ? "measured: the steps per run reported at two sizes"
                     : "assumed: each process takes 1/P of the data (DistributedSampler)"});
    a.push_back({"compute per step",
                 fmt::format("{} at world size {}", util::format_duration(fit.compute_s), r),
                 "measured: the part of a step that scales with each process's share"});
    std::string communication =
        "assumed none: measured at one size only; measure at two (--measure-replicas 1,2)";
    if (fit.communication_clamped) {
        communication = "measured as none: the larger sizes were no slower per process";
    } else if (fit.communication_measured) {
        communication =
            "measured: the part of a step that does not shrink (communication, "
            "fixed costs), x 2(P-1)/P";
    }
    a.push_back({"communication per step",
                 fmt::format("{} at world size 2", util::format_duration(fit.communication_s)),
                 communication});
    a.push_back({"scheduling", util::format_duration(overhead_s),
                 flags.startup_s ? "given: --overhead"
                 : flags.local   ? "none: the replicas start on this machine"
                 : measured_wait(p)
                     ? "measured on the cluster: from submission to the lead's start, the "
                       "median of the sizes (--overhead to set it)"
                     : "default: scheduling and the image pull on a cluster (--overhead)"});
    if (p.where.cluster) {
        if (!flags.local) {
            a.push_back({"where", "the cluster", "measured " + measured_where_text(p)});
        }
        return;
    }
    if (job.gpus > 0) {
        a.push_back({"device", "this machine's",
                     fmt::format("measured here, not on the {} GPU(s) per replica the job asks "
                                 "for: measure on a machine that has them for a GPU estimate",
                                 job.gpus)});
    }
    if (!flags.local) {
        a.push_back({"where", "a cluster",
                     "assumed: as fast as this machine; the processes talked over this machine's "
                     "loopback, between nodes it may be slower"});
    }
}

}  // namespace

double ProgramFit::steps(int world) const {
    return steps_reference * std::pow(static_cast<double>(reference_world) / world, exponent);
}

double ProgramFit::compute_at(int world) const {
    return compute_s * std::pow(static_cast<double>(world) / reference_world, exponent - 1);
}

double ProgramFit::communication_at(int world) const {
    return communication_s * ring_share(world);
}

ProgramFit fit_program(const ProgramProfile& profile) {
    ProgramFit fit;
    const SizeMeasurement& first = profile.sizes.front();
    const SizeMeasurement& last = profile.sizes.back();
    fit.reference_world = first.world_size;
    if (first.steps_per_run) {
        fit.steps_known = true;
        fit.steps_reference = static_cast<double>(*first.steps_per_run);
    }
    if (first.steps_per_run && last.steps_per_run && last.world_size > first.world_size) {
        fit.exponent =
            std::clamp(std::log(static_cast<double>(*first.steps_per_run) / *last.steps_per_run) /
                           std::log(static_cast<double>(last.world_size) / first.world_size),
                       0.0, 1.0);
        fit.exponent_measured = true;
    }
    fit_step(profile.sizes, fit);
    return fit;
}

util::Result<Report> program_report(const ProgramProfile& profile, const JobFacts& job,
                                    const PlanFlags& flags, const PriceCatalog& prices,
                                    const std::optional<Goal>& goal) {
    Plan plan;
    plan.job_replicas = job.replicas;
    if (auto device = resolve_device(job, flags, prices, plan); !device.ok()) {
        return util::error(device.error());
    }
    plan.profile.model = "its own program";
    plan.profile.source = profile.source;
    plan.profile.measured = true;
    plan.input.procs_per_replica = std::max(job.procs_per_replica, 1);
    std::vector<int> sizes = flags.workers;
    if (sizes.empty()) {
        sizes = default_workers();
        sizes.push_back(job.replicas);
        for (const SizeMeasurement& m : profile.sizes) {
            sizes.push_back(m.replicas);
        }
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    plan.input.replicas = sizes;
    const double overhead = flags.startup_s.value_or(
        flags.local ? 0.0 : measured_wait(profile).value_or(k_default_startup_s));
    plan.input.startup_s = overhead;
    const ProgramFit fit = fit_program(profile);
    program_assumptions(profile, fit, job, flags, overhead, plan);
    resolve_price(job, prices, plan);
    std::vector<SizeEstimate> rows;
    for (int replicas : sizes) {
        rows.push_back(program_size(profile, fit, plan, overhead, flags.local, replicas));
    }
    const double one = program_size(profile, fit, plan, overhead, flags.local, 1).total_s;
    Report r;
    r.job_name = job.name;
    r.plan = plan;
    r.program = profile;
    r.estimate = rank_sizes(std::move(rows), one, plan.input.price_per_replica_hour.has_value());
    r.goal = goal;
    for (const SizeMeasurement& m : profile.sizes) {
        note_spread(r.steadiness, m.blocks,
                    fmt::format("the program at {}", util::counted(m.replicas, "replica")));
    }
    choose(r);
    return r;
}

}  // namespace kftrain::estimate
