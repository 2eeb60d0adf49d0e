#include "cost/measure_cost.h"

#include <fmt/format.h>

#include "cost/estimate_inputs.h"
#include "estimate/running_cost.h"
#include "estimate/units.h"
#include "job/exit_codes.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cost {

MeasureCost measurement_cost(const MeasureRequest& request, const Pricing& pricing) {
    MeasureCost cost;
    for (int replicas : request.replicas) {
        cost.replicas += replicas;
    }
    cost.seconds = request.seconds;
    cost.most_seconds = extended_limit(request.seconds);
    cost.currency = pricing.catalog.currency;
    cost.prices = pricing.catalog.file;
    const estimate::JobFacts facts = job_facts(request.spec);
    if (facts.gpus > 0 && pricing.gpu.empty()) {
        cost.unpriced = fmt::format(
            "its replicas ask for {} GPU(s) each: name their type with --gpu", facts.gpus);
        return cost;
    }
    cost.per_replica_hour = estimate::replica_hour_price(
        {facts.cpu_cores, facts.memory_bytes, facts.gpus, facts.gpus > 0 ? pricing.gpu : ""},
        pricing.catalog);
    if (!cost.per_replica_hour) {
        cost.unpriced = fmt::format("{} has no price for its replicas", pricing.catalog.file);
        return cost;
    }
    cost.amount = estimate::cost_so_far(cost.seconds, cost.replicas, *cost.per_replica_hour);
    cost.most = estimate::cost_so_far(cost.most_seconds, cost.replicas, *cost.per_replica_hour);
    return cost;
}

std::string measurement_cost_text(const MeasureRequest& request, const MeasureCost& cost) {
    std::vector<std::string> sizes;
    for (int replicas : request.replicas) {
        sizes.push_back(fmt::format("{}-measure-{}", request.spec.name, replicas));
    }
    const std::string price =
        cost.most
            ? fmt::format(
                  "{} ({} x {} x {}/replica-hour; {} if every size runs {}, as one "
                  "whose reports are too few does)",
                  estimate::format_money(*cost.amount), util::counted(cost.replicas, "replica"),
                  util::format_duration(cost.seconds),
                  estimate::format_money(*cost.per_replica_hour),
                  estimate::format_money(*cost.most), util::format_duration(cost.most_seconds))
            : "unknown: " + cost.unpriced;
    const manifest::JobSpec& spec = request.spec;
    const std::string where =
        (spec.namespace_.empty() ? "the current namespace" : "namespace " + spec.namespace_) +
        (spec.queue.empty() ? "" : ", queue " + spec.queue);
    return fmt::format(
        "measuring on the cluster: {} {} ({}, {} each) in {}; it costs {}, prices from {}; the "
        "time its pods wait to start (queued, pulling images) is not counted, and is at most {} "
        "a size (--start-timeout)\n",
        request.parallel ? "side by side" : "one after another", fmt::join(sizes, ", "),
        util::counted(cost.replicas, "replica"), util::format_duration(cost.seconds), where, price,
        cost.prices, util::format_duration(request.start_timeout_s));
}

util::Status approve_measurement(const MeasureCost& cost, bool yes,
                                 const std::optional<double>& max_cost,
                                 const std::string& max_cost_text) {
    if (max_cost) {
        if (!cost.most) {
            return util::error(
                fmt::format("--max-cost: the measurement cannot be priced ({}), so it cannot be "
                            "held to {}; nothing was submitted",
                            cost.unpriced, max_cost_text),
                k_exit_bad_input);
        }
        if (*cost.most > *max_cost) {
            return util::error(
                fmt::format("--max-cost: the measurement may cost up to {}, more than {}; "
                            "nothing was submitted: raise it, measure fewer sizes or for less "
                            "time (--measure-replicas, --measure-seconds)",
                            estimate::format_money(*cost.most), max_cost_text),
                k_exit_bad_input);
        }
        return util::ok_status();
    }
    if (!yes) {
        return util::error(
            "--on-cluster: the measurement runs pods that cost money (above); nothing was "
            "submitted: run it again with --yes, or with --max-cost AMOUNT to go ahead only "
            "within a budget",
            k_exit_bad_input);
    }
    return util::ok_status();
}

}  // namespace kftrain::cost
