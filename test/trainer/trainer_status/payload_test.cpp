#include "trainer/trainer_status/payload.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace kftrain::trainer::trainer_status;

namespace {

// 2026-06-12T03:00:00Z, the time in Kubeflow's example.
std::chrono::system_clock::time_point payload_example_time() {
    return std::chrono::system_clock::time_point(std::chrono::seconds(1781233200));
}

}  // namespace

TEST_CASE("a trainerStatus body holds progress, ETA, string metrics and the time",
          "[trainer][trainer_status]") {
    TrainerStatus s;
    s.progress_percentage = 45;
    s.estimated_remaining_seconds = 120;
    s.metrics = {{"loss", "0.1500"}, {"accuracy", "0.9200"}};
    s.updated = payload_example_time();
    CHECK(trainer_status_body(s) ==
          R"({"trainerStatus":{"progressPercentage":45,"estimatedRemainingSeconds":120,)"
          R"("metrics":[{"name":"loss","value":"0.1500"},{"name":"accuracy","value":"0.9200"}],)"
          R"("lastUpdatedTime":"2026-06-12T03:00:00.000Z"}})");
}

TEST_CASE("a trainerStatus body leaves out what is unknown but never the time",
          "[trainer][trainer_status]") {
    TrainerStatus s;
    s.updated = payload_example_time();
    CHECK(trainer_status_body(s) ==
          R"({"trainerStatus":{"lastUpdatedTime":"2026-06-12T03:00:00.000Z"}})");
    s.progress_percentage = 0;
    CHECK(
        trainer_status_body(s) ==
        R"({"trainerStatus":{"progressPercentage":0,"lastUpdatedTime":"2026-06-12T03:00:00.000Z"}})");
}

TEST_CASE("metric values are fixed-point strings within the 64-character limit",
          "[trainer][trainer_status]") {
    const struct {
        double value;
        int decimals;
        const char* text;
    } cases[] = {
        {0.15, 4, "0.1500"},
        {2.302585, 4, "2.3026"},
        {670.04, 1, "670.0"},
        {0, 1, "0.0"},
        {1e300, 4, "1e+300"},
        {-1e15, 4, "-1e+15"},
        {std::numeric_limits<double>::quiet_NaN(), 4, "nan"},
        {std::numeric_limits<double>::infinity(), 4, "inf"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        CHECK(metric_value(c.value, c.decimals) == c.text);
        CHECK(metric_value(c.value, c.decimals).size() <= 64);
    }
}
