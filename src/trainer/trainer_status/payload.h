#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "wire/trainer_status_metrics.h"

namespace kftrain::trainer::trainer_status {

// Names of the metrics the trainer posts in trainerStatus.metrics: src/wire's.
namespace metric = wire::metric;

// Hold one entry of trainerStatus.metrics: values are strings (at most 64 characters).
struct StatusMetric {
    std::string name;
    std::string value;
};

// Hold what one trainerStatus post says; an unknown percentage or ETA is left out.
struct TrainerStatus {
    std::optional<int> progress_percentage;
    std::optional<int> estimated_remaining_seconds;
    std::vector<StatusMetric> metrics;
    // When the trainer observed this status (lastUpdatedTime).
    std::chrono::system_clock::time_point updated;
};

// Return the JSON body of a post: {"trainerStatus": {"progressPercentage": 45,
// "estimatedRemainingSeconds": 120, "metrics": [{"name": "loss", "value": "0.1500"}],
// "lastUpdatedTime": "2026-06-12T03:00:00.000Z"}}, members in that order.
std::string trainer_status_body(const TrainerStatus& status);

// Format a metric value with a fixed number of decimals; huge or non-finite values in
// scientific notation or as nan/inf, so that no value passes the 64-character limit.
std::string metric_value(double value, int decimals);

}  // namespace kftrain::trainer::trainer_status
