#include <fmt/format.h>

#include <vector>

#include "estimate/format.h"
#include "estimate/units.h"
#include "util/text.h"
#include "util/text_table.h"
#include "util/time_text.h"

namespace kftrain::estimate {
namespace {

using Row = std::vector<std::string>;

std::string link_name(const SizeEstimate& s) {
    if (s.world_size <= 1) {
        return "-";
    }
    return s.inter_node ? "inter-node" : "intra-node";
}

std::string marks(const Report& r, std::size_t i) {
    std::vector<std::string> m;
    if (r.choice && *r.choice == i) {
        m.push_back("<- choice");
    }
    if (r.estimate.fastest == i) {
        m.push_back("fastest");
    }
    if (r.estimate.cheapest && *r.estimate.cheapest == i) {
        m.push_back("cheapest");
    }
    if (r.estimate.sizes[i].replicas == r.plan.job_replicas) {
        m.push_back("job file");
    }
    return fmt::format("{}", fmt::join(m, ", "));
}

// A total with its range: "8.9s (8.1s-10.2s)".
std::string total_text(const SizeEstimate& s) {
    const std::string total = util::format_duration(s.total_s);
    return s.total_range
               ? fmt::format("{} ({}-{})", total, util::format_duration(s.total_range->low),
                             util::format_duration(s.total_range->high))
               : total;
}

// A cost with its range: "$0.12 ($0.11-$0.14)"; "-" unpriced.
std::string cost_text(const SizeEstimate& s) {
    if (!s.cost) {
        return "-";
    }
    return s.cost_range
               ? fmt::format("{} ({}-{})", format_money(*s.cost), format_money(s.cost_range->low),
                             format_money(s.cost_range->high))
               : format_money(*s.cost);
}

Row size_row(const Report& r, std::size_t i) {
    const SizeEstimate& s = r.estimate.sizes[i];
    return {std::to_string(s.replicas),
            std::to_string(s.global_batch),
            std::to_string(s.steps_per_epoch),
            util::format_duration(s.step_s),
            s.world_size > 1 ? util::format_duration(s.allreduce_s - s.hidden_s) : "-",
            link_name(s),
            util::format_duration(s.epoch_s),
            total_text(s),
            fmt::format("{:.2f}x", s.speedup),
            fmt::format("{:.0f}%", s.efficiency * 100),
            cost_text(s),
            marks(r, i)};
}

std::string basis_name(const SizeEstimate& s) {
    return s.step_measured ? "measured" : (s.extrapolated ? "extrapolated" : "modelled");
}

Row program_row(const Report& r, std::size_t i) {
    const SizeEstimate& s = r.estimate.sizes[i];
    const bool steps = s.steps_per_epoch > 0;
    return {std::to_string(s.replicas),
            steps ? std::to_string(s.steps_per_epoch) : "-",
            steps ? util::format_duration(s.step_s) : "-",
            s.world_size > 1 && steps ? util::format_duration(s.allreduce_s) : "-",
            steps ? util::format_duration(s.epoch_s) : "-",
            total_text(s),
            fmt::format("{:.2f}x", s.speedup),
            fmt::format("{:.0f}%", s.efficiency * 100),
            cost_text(s),
            s.step_measured && r.program->where.cluster ? "measured on cluster" : basis_name(s),
            marks(r, i)};
}

std::string describe_size(const SizeEstimate& s) {
    return fmt::format("{} replica{} ({}{})", s.replicas, s.replicas == 1 ? "" : "s",
                       util::format_duration(s.total_s),
                       s.cost ? ", " + format_money(*s.cost) : "");
}

std::string header(const Report& r) {
    const Plan& p = r.plan;
    const std::string device =
        p.device == "cpu" ? "CPU replicas"
                          : fmt::format("{} x {} per replica", p.gpus_per_replica, p.device);
    if (r.program) {
        std::vector<int> measured;
        for (const SizeMeasurement& m : r.program->sizes) {
            measured.push_back(m.replicas);
        }
        return fmt::format(
            "Estimate for {}: its own program, measured running at {} replica{} {}\n"
            "{} per replica, {}\n",
            r.job_name, fmt::join(measured, " and "),
            measured.size() == 1 && measured[0] == 1 ? "" : "s", measured_where_text(*r.program),
            util::counted(p.input.procs_per_replica, "process", "processes"), device);
    }
    return fmt::format(
        "Estimate for {}: {} on {}, {} samples x {}\n"
        "Batch {} per process, {} per replica, {}\n",
        r.job_name, p.profile.model, p.profile.dataset, p.input.samples,
        util::counted(p.input.epochs, "epoch"), p.input.batch_size,
        util::counted(p.input.procs_per_replica, "process", "processes"), device);
}

std::string summary(const Report& r) {
    const auto& sizes = r.estimate.sizes;
    std::string out = "Fastest: " + describe_size(sizes[r.estimate.fastest]) + ".";
    if (r.estimate.cheapest) {
        out += " Cheapest: " + describe_size(sizes[*r.estimate.cheapest]) + ".";
    }
    out += "\n";
    if (r.goal) {
        const std::string what = r.goal->kind == Goal::Kind::deadline
                                     ? "the cheapest size that meets it"
                                     : "the fastest size within it";
        out += r.choice ? fmt::format("For the {}: {} is {}.\n", describe_goal(*r.goal),
                                      describe_size(sizes[*r.choice]), what)
                        : fmt::format("For the {}: no size fits.\n", describe_goal(*r.goal));
    }
    return out;
}

// Say what the range is, where it came from, and whether the machine was steady enough.
std::string range_note(const Report& r) {
    const Steadiness& st = r.steadiness;
    if (!st.any) {
        return "";
    }
    const Spread& s = st.spread;
    if (!s.known()) {
        return fmt::format("No range: {} gave {}, {} are needed.\nFor one, {}.\n", st.of,
                           util::counted(s.blocks, "block"), k_min_range_blocks,
                           steadiness_advice(r));
    }
    std::string out = fmt::format(
        "Range (in brackets): {}.\nIts widest spread: {}, {} blocks from {:.0f}% to {:.0f}% of "
        "the figure used.\n",
        range_rule(), st.of, s.blocks, s.low * 100, s.high * 100);
    if (s.unsteady()) {
        out += fmt::format(
            "Unsteady: those blocks ran {:.0f}% apart, more than {:.0f}%: the machine's speed "
            "changed while it was measured,\nso even the range may miss. To trust it, {}.\n",
            s.width() * 100, k_unsteady_spread * 100, steadiness_advice(r));
    }
    return out;
}

std::string assumptions(const Report& r) {
    std::string out = "\nAssumptions (each says whether it was measured, given, or a default):\n";
    // A measured profile quotes the program's command line, as the file it came from has it:
    // the table shows its control bytes escaped.
    util::TextTable rows = util::TextTable::without_headers(3);
    for (const Assumption& a : r.plan.assumptions) {
        rows.add_row({"  " + a.name, a.value, a.source});
    }
    out += rows.str();
    if (!r.plan.profile.measured) {
        out +=
            "\nNo --profile: the built-in profile is computed, not measured. Measure one with\n"
            "  kftrain-trainer --model " +
            r.plan.profile.model + " --benchmark 20 --profile-out profile.json\n";
    }
    if (r.program) {
        out +=
            "\nModel: at a size measured, the rate measured; at others, step = compute x\n"
            "(P/R)^(e-1) + communication x 2(P-1)/P over P processes, R the smallest size\n"
            "measured, and steps per run = n(R) x (R/P)^e; total = scheduling + start-up +\n"
            "steps x step; speedup = total(1) / total(N); cost = N x price per replica-hour x\n"
            "total.\n";
        return out;
    }
    out +=
        "\nModel: step = compute + all-reduce - overlap; all-reduce = 2(P-1)/P x gradients /\n"
        "bandwidth + 2(P-1) x latency over P processes; total = start-up (+ rendezvous at\n"
        "P > 1) + warm-up + epochs x (steps x step + evaluation) + checkpoints; speedup =\n"
        "total(1) / total(N); cost = N x price per replica-hour x total.\n";
    return out;
}

}  // namespace

std::string format_table(const Report& r) {
    std::string out = header(r) + "\n";
    if (r.program) {
        util::TextTable rows({"REPLICAS", "STEPS/EPOCH", "STEP", "COMMUNICATION", "EPOCH", "TOTAL",
                              "SPEEDUP", "EFFICIENCY", "COST", "BASIS", ""});
        for (std::size_t i = 0; i < r.estimate.sizes.size(); ++i) {
            rows.add_row(program_row(r, i));
        }
        out += rows.str();
        return out + "\n" + summary(r) + range_note(r) + use_table(*r.program) + assumptions(r);
    }
    util::TextTable rows({"REPLICAS", "GLOBAL BATCH", "STEPS/EPOCH", "STEP", "ALL-REDUCE", "LINK",
                          "EPOCH", "TOTAL", "SPEEDUP", "EFFICIENCY", "COST", ""});
    for (std::size_t i = 0; i < r.estimate.sizes.size(); ++i) {
        rows.add_row(size_row(r, i));
    }
    out += rows.str();
    out += "\n" + summary(r) + range_note(r) + assumptions(r);
    return out;
}

}  // namespace kftrain::estimate
