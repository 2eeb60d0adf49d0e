#include "cli/view/search_view.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "support/text.h"

using namespace kftrain;
using namespace kftrain::cli;

namespace {

tune::TrialRecord trial(int index, const std::string& lr, const std::string& momentum,
                        tune::TrialState state, std::optional<double> objective,
                        const std::string& started, const std::string& finished) {
    tune::TrialRecord t;
    t.index = index;
    t.name = "mnist-tune-" + std::to_string(index);
    t.params = {{"lr", lr}, {"momentum", momentum}};
    t.state = state;
    t.objective = objective;
    if (objective) {
        t.metrics = {{"accuracy", *objective}, {"loss", 0.2}};
    }
    t.started = started;
    t.finished = finished;
    return t;
}

tune::SearchStatus sample_search() {
    tune::SearchStatus s;
    s.name = "mnist-tune";
    s.namespace_ = "default";
    s.backend = "local";
    s.job_kind = "PyTorchJob";
    s.phase = "Running";
    s.reason = "ExperimentRunning";
    s.objective_metric = "accuracy";
    s.maximize = true;
    s.goal = 0.99;
    s.algorithm = "random";
    s.max_trials = 6;
    s.parallel = 2;
    s.max_failed_trials = 3;
    s.param_names = {"lr", "momentum"};
    s.created = "2024-05-01T10:00:00Z";
    s.trials = {
        trial(1, "0.0123", "0.71", tune::TrialState::Succeeded, 0.9312, "2024-05-01T10:00:01Z",
              "2024-05-01T10:00:46Z"),
        trial(2, "0.05", "0.9", tune::TrialState::Succeeded, 0.9512, "2024-05-01T10:00:01Z",
              "2024-05-01T10:00:51Z"),
        trial(3, "0.31", "0.55", tune::TrialState::Failed, std::nullopt, "2024-05-01T10:00:47Z",
              "2024-05-01T10:00:50Z"),
        trial(4, "0.002", "0.8", tune::TrialState::Running, std::nullopt, "2024-05-01T10:00:52Z",
              ""),
    };
    s.trials[2].message = "BackoffLimitExceeded: master-0 exited with code 1";
    s.best_trial = "mnist-tune-2";
    return s;
}

}  // namespace

TEST_CASE("tune status prints the search, its trials with the best marked, and the best line",
          "[search][view]") {
    std::ostringstream out;
    view::print_search(out, sample_search(), view::OutputFormat::Table,
                       kftrain::test::time_at("2024-05-01T10:01:10Z"));
    CHECK(out.str() ==
          "Search:     mnist-tune\n"
          "Namespace:  default\n"
          "Backend:    local\n"
          "Job kind:   PyTorchJob\n"
          "Algorithm:  random\n"
          "State:      Running (ExperimentRunning)\n"
          "Objective:  accuracy (maximize, goal 0.99)\n"
          "Trials:     3 of 6 done (2 succeeded, 1 failed), 1 running\n"
          "Created:    2024-05-01T10:00:00Z (1m10s ago)\n"
          "Duration:   1m10s\n"
          "\n"
          "TRIAL  NAME          STATE      LR      MOMENTUM  ACCURACY  DURATION\n"
          "1      mnist-tune-1  Succeeded  0.0123  0.71      0.9312    45s\n"
          "2*     mnist-tune-2  Succeeded  0.05    0.9       0.9512    50s\n"
          "3      mnist-tune-3  Failed     0.31    0.55      -         3s\n"
          "4      mnist-tune-4  Running    0.002   0.8       -         18s\n"
          "\n"
          "Best: trial 2 (accuracy=0.9512): lr=0.05 momentum=0.9\n");
}

TEST_CASE("tune status shows a COST column and the search's cost when trials are priced",
          "[search][view]") {
    auto s = sample_search();
    s.phase = "Succeeded";
    s.reason = "ExperimentGoalReached";
    s.message = "trial 2 (mnist-tune-2) reached the goal";
    s.finished = "2024-05-01T10:01:00Z";
    s.trials.resize(2);
    s.trials[0].cost = 0.0021;
    s.trials[1].cost = 0.0023;
    s.cost = 0.0044;
    s.cost_basis = "$0.16/h per trial (2 replicas x $0.08/h)";
    std::ostringstream out;
    view::print_search(out, s, view::OutputFormat::Table,
                       kftrain::test::time_at("2024-05-01T10:02:00Z"));
    CHECK(out.str() ==
          "Search:     mnist-tune\n"
          "Namespace:  default\n"
          "Backend:    local\n"
          "Job kind:   PyTorchJob\n"
          "Algorithm:  random\n"
          "State:      Succeeded (ExperimentGoalReached): trial 2 (mnist-tune-2) reached the goal\n"
          "Objective:  accuracy (maximize, goal 0.99)\n"
          "Trials:     2 of 6 done (2 succeeded)\n"
          "Created:    2024-05-01T10:00:00Z (2m0s ago)\n"
          "Finished:   2024-05-01T10:01:00Z (1m0s ago)\n"
          "Duration:   1m0s\n"
          "Cost:       $0.0044: $0.16/h per trial (2 replicas x $0.08/h)\n"
          "\n"
          "TRIAL  NAME          STATE      LR      MOMENTUM  ACCURACY  DURATION  COST\n"
          "1      mnist-tune-1  Succeeded  0.0123  0.71      0.9312    45s       $0.0021\n"
          "2*     mnist-tune-2  Succeeded  0.05    0.9       0.9512    50s       $0.0023\n"
          "\n"
          "Best: trial 2 (accuracy=0.9512): lr=0.05 momentum=0.9\n");
}

TEST_CASE("a search's trial lines show the objective, or why there is none", "[search][view]") {
    auto s = sample_search();
    CHECK(view::format_trial_line(s.trials[0], s) ==
          "trial 1 mnist-tune-1 Succeeded  lr=0.0123 momentum=0.71  accuracy=0.9312");
    CHECK(view::format_trial_line(s.trials[2], s) ==
          "trial 3 mnist-tune-3 Failed  lr=0.31 momentum=0.55  BackoffLimitExceeded: master-0 "
          "exited with code 1");
    s.trials.resize(1);
    s.trials[0].objective.reset();
    s.best_trial.clear();
    CHECK(view::format_best_line(s) == "");
}

TEST_CASE("tune status -o json carries every trial, the best one and the objective",
          "[search][view]") {
    auto doc =
        view::search_to_json(sample_search(), kftrain::test::time_at("2024-05-01T10:01:10Z"));
    CHECK(doc["name"] == "mnist-tune");
    CHECK(doc["backend"] == "local");
    CHECK(doc["phase"] == "Running");
    CHECK(doc["objective"]["metric"] == "accuracy");
    CHECK(doc["objective"]["type"] == "maximize");
    CHECK(doc["objective"]["goal"] == 0.99);
    CHECK(doc["parameters"] == nlohmann::json::array({"lr", "momentum"}));
    REQUIRE(doc["trials"].size() == 4);
    CHECK(doc["trials"][0]["parameters"]["lr"] == "0.0123");
    CHECK(doc["trials"][0]["objective"] == 0.9312);
    CHECK(doc["trials"][0]["metrics"]["loss"] == 0.2);
    CHECK(doc["trials"][0]["durationSeconds"] == 45);
    CHECK(doc["trials"][2]["objective"].is_null());
    CHECK(doc["trials"][2]["message"] == "BackoffLimitExceeded: master-0 exited with code 1");
    CHECK(doc["trials"][3]["state"] == "Running");
    CHECK(doc["bestTrial"]["name"] == "mnist-tune-2");
    CHECK(doc["bestTrial"]["index"] == 2);
    CHECK(doc["cost"].is_null());

    std::ostringstream yaml;
    view::print_search(yaml, sample_search(), view::OutputFormat::Yaml,
                       kftrain::test::time_at("2024-05-01T10:01:10Z"));
    CHECK(yaml.str().find("name: mnist-tune\n") != std::string::npos);
    CHECK(yaml.str().find("bestTrial:\n") != std::string::npos);
}
