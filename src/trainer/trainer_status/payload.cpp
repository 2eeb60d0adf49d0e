#include "trainer/trainer_status/payload.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "trainer/loop/progress.h"

namespace kftrain::trainer::trainer_status {

std::string trainer_status_body(const TrainerStatus& status) {
    nlohmann::ordered_json inner = nlohmann::ordered_json::object();
    if (status.progress_percentage) {
        inner["progressPercentage"] = *status.progress_percentage;
    }
    if (status.estimated_remaining_seconds) {
        inner["estimatedRemainingSeconds"] = *status.estimated_remaining_seconds;
    }
    if (!status.metrics.empty()) {
        auto& metrics = inner["metrics"] = nlohmann::ordered_json::array();
        for (const auto& m : status.metrics) {
            metrics.push_back({{"name", m.name}, {"value", m.value}});
        }
    }
    inner["lastUpdatedTime"] = iso_time_utc(status.updated);
    nlohmann::ordered_json body;
    body["trainerStatus"] = std::move(inner);
    return body.dump();
}

std::string metric_value(double value, int decimals) {
    constexpr double k_fixed_below = 1e12;
    if (std::isfinite(value) && std::fabs(value) < k_fixed_below) {
        return fmt::format("{:.{}f}", value, decimals);
    }
    return fmt::format("{:.6g}", value);
}

}  // namespace kftrain::trainer::trainer_status
