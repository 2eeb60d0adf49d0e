// --metric-lines: the name=value line Katib's StdOut collector reads, and who prints it.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "trainer/loop/progress.h"
#include "trainer/startup/options.h"
#include "trainer/support/katib_metrics.h"

using namespace kftrain::trainer;
using trainer_test::katib_pairs;

TEST_CASE("metric lines read accuracy=A loss=L with six decimals", "[trainer][metrics]") {
    struct Case {
        double accuracy, loss;
        std::string line;
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<Case> cases = {
        {0.9712, 0.0843, "accuracy=0.971200 loss=0.084300"},
        {1, 0, "accuracy=1.000000 loss=0.000000"},
        {0, 2.302585093, "accuracy=0.000000 loss=2.302585"},
        {0.5, 123456.789, "accuracy=0.500000 loss=123456.789000"},
        {0.25, 1e-9, "accuracy=0.250000 loss=0.000000"},
        {0.1, nan, "accuracy=0.100000"},
        {0.1, inf, "accuracy=0.100000"},
    };
    for (const auto& c : cases) {
        CHECK(format_metric_line(c.accuracy, c.loss) == c.line);
    }
}

TEST_CASE("Katib's filter reads back the values a metric line holds", "[trainer][metrics]") {
    const std::vector<std::pair<double, double>> values = {
        {0.9712, 0.0843}, {1, 0}, {0, 2.302585}, {0.5, 123456.789}, {0.999999, 1e-6}};
    for (const auto& [accuracy, loss] : values) {
        const auto line = format_metric_line(accuracy, loss);
        INFO(line);
        const auto pairs = katib_pairs(line);
        REQUIRE(pairs.size() == 2);
        CHECK(pairs[0].first == "accuracy");
        CHECK(std::stod(pairs[0].second) == Approx(accuracy).margin(5e-7));
        CHECK(pairs[1].first == "loss");
        CHECK(std::stod(pairs[1].second) == Approx(loss).margin(5e-7));
    }
}

TEST_CASE("rank 0 prints the metric line to stdout in both formats, other ranks nothing",
          "[trainer][metrics]") {
    for (const bool json : {false, true}) {
        std::ostringstream out0, err0, out1, err1;
        const auto at = [] {
            return std::chrono::system_clock::time_point(std::chrono::milliseconds(1795400220123));
        };
        ProgressLog rank0(out0, err0, json, 0, 2, at);
        ProgressLog rank1(out1, err1, json, 1, 2, at);
        rank0.print_metrics(0.9712, 0.0843);
        rank1.print_metrics(0.9712, 0.0843);
        INFO("json " << json);
        CHECK(out0.str() == "2026-11-23T02:17:00.123Z accuracy=0.971200 loss=0.084300\n");
        CHECK(err0.str().empty());
        CHECK(out1.str().empty());
        CHECK(err1.str().empty());
    }
}

TEST_CASE("the trainer's --metric-lines takes true or false and defaults to false",
          "[trainer][metrics]") {
    CHECK_FALSE(parse_command_line({})->train.metric_lines);
    CHECK(parse_command_line({"--metric-lines", "true"})->train.metric_lines);
    CHECK_FALSE(parse_command_line({"--metric-lines", "false"})->train.metric_lines);
    const auto bad = parse_command_line({"--metric-lines", "yes"});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error() == "--metric-lines: must be true or false (got yes)");
}
