#pragma once

#include <optional>
#include <string>

#include "cost/job_cost.h"
#include "cost/measurement.h"

namespace kftrain::cost {

// What a measurement on the cluster costs before anything is submitted: every size's replicas
// for --measure-seconds each, and at most for extended_limit() each (a size whose reports are
// too few runs on). The time its pods wait to start (a queue, an image pull) is not bounded.
struct MeasureCost {
    int replicas = 0;                        // of every size together
    double seconds = 0;                      // each size runs this long
    double most_seconds = 0;                 // and at most this long
    std::optional<double> per_replica_hour;  // none: the catalog has no price for its replicas
    std::optional<double> amount;            // at seconds
    std::optional<double> most;              // at most_seconds: what --max-cost must cover
    std::string currency;
    std::string prices;    // where the prices come from
    std::string unpriced;  // why there is no price, when there is none
};

// Price the request's sizes (replicas x seconds x price per replica-hour).
MeasureCost measurement_cost(const MeasureRequest& request, const Pricing& pricing);

// Say what the measurement will run and cost, in one paragraph for the terminal.
std::string measurement_cost_text(const MeasureRequest& request, const MeasureCost& cost);

// Check that the measurement may go ahead: --yes, or a --max-cost (max_cost, in the catalog's
// currency) that covers the most it can cost; else an error (exit 2) saying what it costs and
// how to go ahead. Nothing is submitted when this fails.
util::Status approve_measurement(const MeasureCost& cost, bool yes,
                                 const std::optional<double>& max_cost,
                                 const std::string& max_cost_text);

}  // namespace kftrain::cost
