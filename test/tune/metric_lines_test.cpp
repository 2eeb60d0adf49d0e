#include "tune/metric_lines.h"

#include <catch2/catch.hpp>

using namespace kftrain;

namespace {

std::vector<std::pair<std::string, double>> pairs(const std::string& line) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& value : tune::parse_metric_line(line)) {
        out.emplace_back(value.name, value.value);
    }
    return out;
}

}  // namespace

TEST_CASE("Katib's default filter reads name=value pairs from a line", "[tune]") {
    using P = std::vector<std::pair<std::string, double>>;
    CHECK(pairs("accuracy=0.971200 loss=0.084300") == P{{"accuracy", 0.9712}, {"loss", 0.0843}});
    CHECK(pairs("epoch 3: accuracy = 0.5, val-loss=1e-3") ==
          P{{"accuracy", 0.5}, {"val-loss", 0.001}});
    CHECK(pairs("accuracy=1 loss=0") == P{{"accuracy", 1}, {"loss", 0}});
    CHECK(pairs("loss=-2.5E+2") == P{{"loss", -250}});
}

TEST_CASE("the second filter reads the Trainer's dicts and Keras's lines, not a clock", "[tune]") {
    using P = std::vector<std::pair<std::string, double>>;
    CHECK(pairs("{'eval_loss': 0.25, 'eval_accuracy': 0.9, 'epoch': 1.0}") ==
          P{{"eval_loss", 0.25}, {"eval_accuracy", 0.9}, {"epoch", 1.0}});
    CHECK(pairs("469/469 [=====] - 5s 10ms/step - loss: 0.3012 - accuracy: 0.9101") ==
          P{{"loss", 0.3012}, {"accuracy", 0.9101}});
    CHECK(pairs("2026-12-06 10:00:01 started").empty());
}

TEST_CASE("lines without a metric give none", "[tune]") {
    CHECK(tune::parse_metric_line("").empty());
    CHECK(tune::parse_metric_line(R"({"event":"eval","accuracy":0.97,"loss":0.08})").empty());
    CHECK(tune::parse_metric_line("training finished").empty());
    CHECK(tune::parse_metric_line("lr=").empty());
    CHECK(tune::parse_metric_line(std::string(1 << 20, 'a') + "=1").empty());
}

TEST_CASE("metrics reduce by the objective's direction, as Katib's default strategies", "[tune]") {
    const std::vector<tune::MetricValue> values = {
        {"accuracy", 0.80}, {"loss", 0.5}, {"accuracy", 0.92}, {"loss", 0.2}, {"accuracy", 0.90}};
    auto maximized = tune::reduce_metrics(values, true);
    CHECK(maximized.at("accuracy") == Approx(0.92));
    CHECK(maximized.at("loss") == Approx(0.5));
    auto minimized = tune::reduce_metrics(values, false);
    CHECK(minimized.at("accuracy") == Approx(0.80));
    CHECK(minimized.at("loss") == Approx(0.2));
    CHECK(tune::reduce_metrics({}, true).empty());
}
