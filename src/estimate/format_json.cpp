#include <nlohmann/json.hpp>

#include "estimate/format.h"
#include "util/json_text.h"

namespace kftrain::estimate {
namespace {

using OrderedJson = nlohmann::ordered_json;

// A program's sizes leave out what its reports do not say (its batch, and its steps when it
// reported none): null, not 0.
OrderedJson size_json(const SizeEstimate& s, bool program) {
    OrderedJson j;
    j["replicas"] = s.replicas;
    j["world_size"] = s.world_size;
    j["link"] = s.world_size <= 1 ? "none" : (s.inter_node ? "inter-node" : "intra-node");
    j["global_batch"] = program ? OrderedJson(nullptr) : OrderedJson(s.global_batch);
    j["steps_per_epoch"] =
        program && s.steps_per_epoch == 0 ? OrderedJson(nullptr) : OrderedJson(s.steps_per_epoch);
    j["compute_s_per_step"] = s.compute_s;
    j["allreduce_s_per_step"] = s.allreduce_s;
    j["hidden_s_per_step"] = s.hidden_s;
    j["step_s"] = s.step_s;
    // measured: a profile at this world size gave the whole step; modelled: compute plus
    // the all-reduce modelled from the bandwidth and overlap (compute alone at 1 process).
    j["step_basis"] = s.step_measured ? "measured" : (s.extrapolated ? "extrapolated" : "modelled");
    j["epoch_s"] = s.epoch_s;
    j["rendezvous_s"] = s.rendezvous_s;
    j["eval_s"] = s.eval_s;
    j["checkpoints"] = s.checkpoints;
    j["checkpoint_s"] = s.checkpoint_s;
    j["total_s"] = s.total_s;
    j["speedup"] = s.speedup;
    j["efficiency"] = s.efficiency;
    j["cost"] = s.cost ? OrderedJson(*s.cost) : OrderedJson(nullptr);
    // The range (docs/estimate.md#the-range): null where the blocks measured are too few.
    const auto end = [](const std::optional<Range>& range, double Range::*at) {
        return range ? OrderedJson(*range.*at) : OrderedJson(nullptr);
    };
    j["total_s_low"] = end(s.total_range, &Range::low);
    j["total_s_high"] = end(s.total_range, &Range::high);
    j["cost_low"] = end(s.cost_range, &Range::low);
    j["cost_high"] = end(s.cost_range, &Range::high);
    return j;
}

// Return the replicas of the size at index, or null.
OrderedJson replicas_at(const Report& r, const std::optional<std::size_t>& index) {
    return index ? OrderedJson(r.estimate.sizes[*index].replicas) : OrderedJson(nullptr);
}

OrderedJson goal_json(const Report& r) {
    if (!r.goal) {
        return nullptr;
    }
    OrderedJson j;
    j["kind"] = r.goal->kind == Goal::Kind::deadline ? "deadline" : "budget";
    j[r.goal->kind == Goal::Kind::deadline ? "deadline_s" : "budget"] = r.goal->limit;
    j["choice"] = replicas_at(r, r.choice);
    return j;
}

// The range's rule, the spread it came from and the verdict on it; null for a built-in
// profile (nothing measured).
OrderedJson range_json(const Report& r) {
    const Steadiness& st = r.steadiness;
    if (!st.any) {
        return nullptr;
    }
    OrderedJson j;
    j["rule"] = range_rule();
    j["low_percentile"] = k_range_low_percentile;
    j["high_percentile"] = k_range_high_percentile;
    j["margin"] = k_range_margin;
    j["known"] = st.spread.known();
    j["min_blocks"] = k_min_range_blocks;
    j["spread_of"] = st.of;
    j["blocks"] = st.spread.blocks;
    j["spread_low"] = st.spread.low;
    j["spread_high"] = st.spread.high;
    j["unsteady"] = st.spread.unsteady();
    j["unsteady_above"] = k_unsteady_spread;
    j["advice"] = st.spread.unsteady() || !st.spread.known() ? OrderedJson(steadiness_advice(r))
                                                             : OrderedJson(nullptr);
    return j;
}

}  // namespace

OrderedJson report_to_json(const Report& r) {
    const Plan& p = r.plan;
    OrderedJson j;
    j["job"] = r.job_name;
    j["model"] = p.profile.model;
    j["dataset"] = p.profile.dataset;
    j["device"] = p.device;
    j["gpus_per_replica"] = p.gpus_per_replica;
    j["procs_per_replica"] = p.input.procs_per_replica;
    j["batch_size"] = p.input.batch_size;
    j["samples"] = p.input.samples;
    j["epochs"] = p.input.epochs;
    j["test_samples"] = p.input.run.eval_samples;
    j["startup_s"] = p.input.startup_s;
    j["warmup_s"] = p.input.run.warmup_extra_s;
    j["profile"] = {
        {"source", p.profile.source},
        {"measured", p.profile.measured},
        {"measured_from", r.program ? "program" : (p.profile.measured ? "benchmark" : "built-in")}};
    if (r.program) {
        OrderedJson sizes = OrderedJson::array();
        for (const SizeMeasurement& m : r.program->sizes) {
            sizes.push_back(m.replicas);
        }
        j["program"] = {{"command", r.program->program},
                        {"measured_replicas", sizes},
                        {"measured_at", r.program->measured_at},
                        {"measured_on", r.program->where.cluster ? "cluster" : "this machine"},
                        {"where", measured_where_text(*r.program)},
                        {"seconds_limit", r.program->seconds_limit}};
        const OrderedJson use = use_json(*r.program);  // outlives the loop over it
        for (const auto& [key, value] : use.items()) {
            j["program"][key] = value;
        }
    }
    j["currency"] = p.currency;
    j["price_per_replica_hour"] = p.input.price_per_replica_hour
                                      ? OrderedJson(*p.input.price_per_replica_hour)
                                      : OrderedJson(nullptr);
    j["sizes"] = OrderedJson::array();
    for (const SizeEstimate& s : r.estimate.sizes) {
        j["sizes"].push_back(size_json(s, r.program.has_value()));
    }
    j["fastest"] =
        replicas_at(r, r.estimate.sizes.empty() ? std::nullopt : std::optional(r.estimate.fastest));
    j["cheapest"] = replicas_at(r, r.estimate.cheapest);
    j["goal"] = goal_json(r);
    j["assumptions"] = OrderedJson::array();
    for (const Assumption& a : p.assumptions) {
        j["assumptions"].push_back({{"name", a.name}, {"value", a.value}, {"source", a.source}});
    }
    j["range"] = range_json(r);
    return j;
}

std::string format_json(const Report& report) {
    return util::json_text(report_to_json(report), 2) + "\n";
}

}  // namespace kftrain::estimate
