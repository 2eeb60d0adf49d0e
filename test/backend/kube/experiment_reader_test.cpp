#include "backend/kube/search/experiment_reader.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/katib_data.h"

using namespace kftrain;
using kftrain::tune::TrialState;
using nlohmann::json;
using Params = std::vector<std::pair<std::string, std::string>>;

namespace {

// A search of one experiment text and a List of these trials.
kftrain::util::Result<backend::kube::ClusterSearch> read_texts(const std::string& experiment,
                                                               const std::string& trials_items) {
    return backend::kube::read_cluster_search(
        experiment, R"({"kind": "List", "items": [)" + trials_items + "]}");
}

const char* const k_maximize_accuracy = R"({"kind": "Experiment", "metadata": {"name": "t"},
    "spec": {"objective": {"type": "maximize", "objectiveMetricName": "accuracy"},
             "parameters": [{"name": "lr"}, {"name": "momentum"}]}})";

}  // namespace

TEST_CASE("a running Katib search reads as its trials in creation order", "[search]") {
    auto search = test::read_katib_search("katib-running");
    const auto& status = search.status;
    CHECK(status.name == "mnist-tune");
    CHECK(status.namespace_ == "ml-training");
    CHECK(status.backend == "kubernetes");
    CHECK(status.job_kind == "PyTorchJob");
    CHECK(status.phase == "Running");
    CHECK(status.reason == "ExperimentRunning");
    CHECK(status.message == "Experiment is running");
    CHECK(status.objective_metric == "accuracy");
    CHECK(status.maximize);
    CHECK(status.goal == 0.99);
    CHECK(status.algorithm == "random");
    CHECK(status.max_trials == 12);
    CHECK(status.parallel == 3);
    CHECK(status.max_failed_trials == 3);
    CHECK(status.param_names == std::vector<std::string>{"lr", "momentum", "batchSize"});
    CHECK(status.best_trial == "mnist-tune-7kq2xw9d");
    CHECK(status.created == "2024-05-02T09:00:00Z");
    CHECK(status.finished == "");

    // kubectl lists trials by name; the table numbers them as Katib created them.
    std::vector<std::string> names;
    for (const auto& trial : status.trials) {
        names.push_back(std::to_string(trial.index) + " " + trial.name + " " +
                        kftrain::tune::trial_state_name(trial.state));
    }
    CHECK(names == std::vector<std::string>{
                       "1 mnist-tune-7kq2xw9d Succeeded", "2 mnist-tune-bx5lm2fz Succeeded",
                       "3 mnist-tune-c2zq9h4t Failed", "4 mnist-tune-4rj6k8wq Running",
                       "5 mnist-tune-p9d2vn7s Running", "6 mnist-tune-x4hj8t2m Pending"});
    const auto& best = status.trials[0];
    CHECK(best.params == Params{{"lr", "0.01234"}, {"momentum", "0.8213"}, {"batchSize", "64"}});
    CHECK(best.objective == 0.9871);           // the max of its evaluations, as Katib takes it
    CHECK(best.metrics.at("loss") == 0.2012);  // Katib's default: every metric by max
    CHECK(best.started == "2024-05-02T09:00:05Z");
    CHECK(best.finished == "2024-05-02T09:12:35Z");
    CHECK(best.message == "");
    const auto& failed = status.trials[2];
    CHECK_FALSE(failed.objective);  // "unavailable"
    CHECK(failed.metrics.empty());
    CHECK(failed.message ==
          "Trial has failed. Job message: PyTorchJob mnist-tune-c2zq9h4t is failed because 1 "
          "Master replica(s) failed.");
    CHECK(status.trials[3].objective == 0.9612);  // so far
    CHECK(status.trials[3].finished == "");
    CHECK_FALSE(status.trials[4].objective);
    CHECK(status.trials[5].started == "");  // Pending: no job yet, so no time and no cost

    // Each trial's job is named after it and asks what its runSpec asks.
    REQUIRE(search.trial_jobs.size() == 6);
    CHECK(search.trial_jobs[2].name == "mnist-tune-c2zq9h4t");
    CHECK(search.trial_jobs[2].phase == job::JobPhase::Failed);
    CHECK(search.trial_jobs[2].requests.size() == 2);
    REQUIRE(search.template_job);
    CHECK(search.template_job->replicas_wanted == 2);
}

TEST_CASE("a Katib search that reached its goal reads as Succeeded with its best trial",
          "[search]") {
    auto search = test::read_katib_search("katib-succeeded");
    const auto& status = search.status;
    CHECK(status.phase == "Succeeded");
    CHECK(status.reason == "ExperimentGoalReached");
    CHECK(status.message == "Experiment has succeeded because Objective goal has reached");
    CHECK(status.finished == "2024-05-03T14:36:51Z");
    CHECK_FALSE(status.maximize);
    CHECK(status.objective_metric == "loss");
    CHECK(status.goal == 0.05);
    CHECK(status.algorithm == "tpe");
    CHECK(status.param_names == std::vector<std::string>{"lr", "momentum"});
    CHECK(status.best_trial == "cifar-tune-2gt6r9bs");
    REQUIRE(status.trials.size() == 4);
    const auto& best = status.trials[2];
    CHECK(best.name == "cifar-tune-2gt6r9bs");
    CHECK(best.objective == 0.0412);               // the min, not the latest 0.0430
    CHECK(best.metrics.at("accuracy") == 0.8711);  // by min too: Katib's default when minimizing
    const auto& no_metrics = status.trials[1];
    CHECK(no_metrics.state == TrialState::MetricsUnavailable);
    CHECK_FALSE(no_metrics.objective);
    CHECK(no_metrics.message ==
          "Metrics are not available. Job message: PyTorchJob cifar-tune-n3wz7k1v is "
          "successfully completed.");
    CHECK(status.trials[3].state == TrialState::Killed);
    CHECK(status.trials[3].message == "Trial is killed");
}

TEST_CASE("a Katib search of TrainJob trials reads their jobs as TrainJobs", "[search]") {
    auto search = test::read_katib_search("katib-trainjob");
    CHECK(search.status.job_kind == "TrainJob");
    CHECK(search.status.algorithm == "bayesianoptimization");
    REQUIRE(search.template_job);
    CHECK(search.template_job->kind == "TrainJob");
    REQUIRE(search.template_job->requests.size() == 1);
    CHECK(search.template_job->requests[0].replicas == 2);
    CHECK(search.template_job->requests[0].cpu_cores == 4);
    REQUIRE(search.trial_jobs.size() == 2);
    CHECK(search.trial_jobs[0].name == search.status.trials[0].name);
    CHECK(search.trial_jobs[0].kind == "TrainJob");
}

TEST_CASE("a trial's state is its last true condition", "[search]") {
    struct Case {
        const char* name;
        const char* trial;
        TrialState state;
    };
    const Case cases[] = {
        {"no status", R"({})", TrialState::Pending},
        {"created", R"({"status": {"conditions": [{"type": "Created", "status": "True"}]}})",
         TrialState::Pending},
        {"running",
         R"({"status": {"conditions": [{"type": "Created", "status": "True"},
             {"type": "Running", "status": "True"}]}})",
         TrialState::Running},
        {"succeeded",
         R"({"status": {"conditions": [{"type": "Created", "status": "True"},
             {"type": "Running", "status": "False"}, {"type": "Succeeded", "status": "True"}]}})",
         TrialState::Succeeded},
        {"early stopped",
         R"({"status": {"conditions": [{"type": "Running", "status": "False"},
             {"type": "EarlyStopped", "status": "True"}]}})",
         TrialState::EarlyStopped},
        {"metrics unavailable, as Katib before v0.15 wrote it",
         R"({"status": {"conditions": [{"type": "Created", "status": "True"},
             {"type": "Running", "status": "False"},
             {"type": "Succeeded", "status": "False", "reason": "MetricsUnavailable"}]}})",
         TrialState::MetricsUnavailable},
        {"an unknown type", R"({"status": {"conditions": [{"type": "Paused", "status": "True"}]}})",
         TrialState::Pending},
        {"status as a boolean",
         R"({"status": {"conditions": [{"type": "Running", "status": true}]}})",
         TrialState::Pending},
        {"conditions not a list", R"({"status": {"conditions": {"type": "Running"}}})",
         TrialState::Pending},
        {"not an object", R"("Running")", TrialState::Pending},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        CHECK(backend::kube::trial_state(json::parse(c.trial)) == c.state);
    }
}

TEST_CASE("Katib's metric strings read as numbers, unavailable as none", "[search]") {
    struct Case {
        const char* value;  // JSON
        std::optional<double> number;
    };
    const Case cases[] = {
        {R"("0.9712")", 0.9712},   {R"("1e-3")", 0.001}, {R"("-2")", -2.0}, {R"(0.5)", 0.5},
        {R"("unavailable")", {}},  {R"("")", {}},        {R"("0.5 ")", {}}, {R"("0.5abc")", {}},
        {R"("nan")", {}},          {R"("inf")", {}},     {R"(null)", {}},   {R"([1])", {}},
        {R"({"value": "1"})", {}}, {R"(true)", {}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.value);
        CHECK(backend::kube::metric_value(json::parse(c.value)) == c.number);
    }
}

TEST_CASE("a trial's objective follows the metric strategy", "[search]") {
    struct Case {
        const char* name;
        const char* objective;  // spec.objective
        const char* metric;     // the observation's accuracy
        std::optional<double> value;
    };
    const Case cases[] = {
        {"max when maximizing", R"({"type": "maximize", "objectiveMetricName": "accuracy"})",
         R"({"name": "accuracy", "min": "0.5", "max": "0.9", "latest": "0.8"})", 0.9},
        {"min when minimizing", R"({"type": "minimize", "objectiveMetricName": "accuracy"})",
         R"({"name": "accuracy", "min": "0.5", "max": "0.9", "latest": "0.8"})", 0.5},
        {"the strategy named for it",
         R"({"type": "maximize", "objectiveMetricName": "accuracy",
             "metricStrategies": [{"name": "accuracy", "value": "latest"}]})",
         R"({"name": "accuracy", "min": "0.5", "max": "0.9", "latest": "0.8"})", 0.8},
        {"the latest when max is unavailable",
         R"({"type": "maximize", "objectiveMetricName": "accuracy"})",
         R"({"name": "accuracy", "min": "unavailable", "max": "unavailable", "latest": "0.7"})",
         0.7},
        {"an unknown strategy is ignored",
         R"({"type": "maximize", "objectiveMetricName": "accuracy",
             "metricStrategies": [{"name": "accuracy", "value": "median"}]})",
         R"({"name": "accuracy", "min": "0.5", "max": "0.9", "latest": "0.8"})", 0.9},
        {"another metric's strategy does not apply",
         R"({"type": "minimize", "objectiveMetricName": "accuracy",
             "metricStrategies": [{"name": "loss", "value": "max"}]})",
         R"({"name": "accuracy", "min": "0.5", "max": "0.9", "latest": "0.8"})", 0.5},
        {"a number where Katib writes strings",
         R"({"type": "maximize", "objectiveMetricName": "accuracy"})",
         R"({"name": "accuracy", "max": 0.95})", 0.95},
        {"nothing observed", R"({"type": "maximize", "objectiveMetricName": "accuracy"})",
         R"({"name": "accuracy", "min": "unavailable", "max": "unavailable",
             "latest": "unavailable"})",
         std::nullopt},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        auto read = read_texts(
            std::string(R"({"kind": "Experiment", "spec": {"objective": )") + c.objective + "}}",
            std::string(R"({"kind": "Trial", "status": {"observation": {"metrics": [)") + c.metric +
                "]}}}");
        REQUIRE(read);
        REQUIRE(read->status.trials.size() == 1);
        CHECK(read->status.trials[0].objective == c.value);
    }
}

TEST_CASE(
    "trials created in the same second are numbered by name, values in the search's "
    "order",
    "[search]") {
    auto read = read_texts(k_maximize_accuracy, R"(
        {"kind": "Trial", "metadata": {"name": "t-zz", "creationTimestamp": "2024-05-02T09:00:05Z"},
         "spec": {"parameterAssignments": [{"name": "momentum", "value": "0.9"},
                                           {"name": "seed", "value": "7"},
                                           {"name": "lr", "value": "0.1"}]}},
        {"kind": "Trial", "metadata": {"name": "t-aa", "creationTimestamp": "2024-05-02T09:00:05Z"}},
        {"kind": "Trial", "metadata": {"name": "t-00", "creationTimestamp": "2024-05-02T09:01:00Z"}})");
    REQUIRE(read);
    const auto& trials = read->status.trials;
    REQUIRE(trials.size() == 3);
    CHECK(trials[0].name == "t-aa");
    CHECK(trials[1].name == "t-zz");
    CHECK(trials[2].name == "t-00");
    CHECK(trials[2].index == 3);
    CHECK(trials[1].params == Params{{"lr", "0.1"}, {"momentum", "0.9"}, {"seed", "7"}});
    CHECK(read->trial_jobs[1].name == "t-zz");  // no runSpec: the trial's own name
}

TEST_CASE("what kubectl printed that is not an Experiment and a List of Trials is an error",
          "[search]") {
    struct Case {
        const char* experiment;
        const char* trials;
        const char* message;
    };
    const Case cases[] = {
        {"<html>502 Bad Gateway</html>", R"({"items": []})",
         "kubectl printed something that is not a JSON object"},
        {"", R"({"items": []})", "kubectl printed something that is not a JSON object"},
        {R"([{"kind": "Experiment"}])", R"({"items": []})",
         "kubectl printed something that is not a JSON object"},
        {R"({"kind": "Pod"})", R"({"items": []})",
         "kubectl returned a Pod where an Experiment was expected"},
        {R"({"metadata": {"name": "x"}})", R"({"items": []})",
         "kubectl returned an object without a kind where an Experiment was expected"},
        {R"({"kind": 7})", R"({"items": []})",
         "kubectl returned an object without a kind where an Experiment was expected"},
        {R"({"kind": "Experiment"})", "{\"items\": [",
         "its trials: kubectl printed something that is not a JSON object"},
        {R"({"kind": "Experiment"})", R"({"items": "none"})",
         "its trials: kubectl printed a list without items"},
        {R"({"kind": "Experiment"})", R"({"kind": "List"})",
         "its trials: kubectl printed a list without items"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.experiment, c.trials);
        auto read = backend::kube::read_cluster_search(c.experiment, c.trials);
        REQUIRE_FALSE(read);
        CHECK(read.error() == c.message);
        CHECK(read.error_code(0) == 4);
    }
}

TEST_CASE("an Experiment missing its fields or with fields of other types reads as defaults",
          "[search]") {
    struct Case {
        const char* name;
        const char* experiment;
        const char* trials;  // items
    };
    const Case cases[] = {
        {"only a kind", R"({"kind": "Experiment"})", ""},
        {"spec and status of other types",
         R"({"kind": "Experiment", "metadata": [], "spec": "x", "status": 3})", ""},
        {"fields of other types",
         R"({"kind": "Experiment", "metadata": {"name": 1, "namespace": null},
             "spec": {"objective": {"type": 1, "goal": "0.99", "objectiveMetricName": {},
                                    "metricStrategies": "max"},
                      "algorithm": "random", "maxTrialCount": "12", "parallelTrialCount": 2.5,
                      "maxFailedTrialCount": -4, "parameters": {"name": "lr"},
                      "trialTemplate": {"trialSpec": {"kind": "PyTorchJob", "spec": []}}},
             "status": {"conditions": "Running", "currentOptimalTrial": [],
                        "completionTime": 5}})",
         R"(null, 3, "trial", [], {"kind": "Trial", "metadata": "x", "spec": {"parameterAssignments":
            [{"name": 1, "value": 2}, "lr=0.1", null], "runSpec": {"kind": "TrainJob",
            "spec": {"trainer": {"numNodes": "two", "resourcesPerNode": {"requests": []}}}}},
            "status": {"conditions": [null, {"type": null, "status": "True"}],
                       "observation": {"metrics": [null, {"name": "accuracy", "max": {}}]},
                       "startTime": 1}})"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        kftrain::util::Result<backend::kube::ClusterSearch> read = kftrain::util::error("not read");
        REQUIRE_NOTHROW(read = read_texts(c.experiment, c.trials));
        REQUIRE(read);
        const auto& status = read->status;
        CHECK(status.name == "");
        CHECK(status.phase == "Created");
        CHECK(status.maximize);
        CHECK_FALSE(status.goal);
        CHECK(status.max_trials == 0);
        CHECK(status.parallel == 0);
        CHECK(status.max_failed_trials == 0);
        CHECK(status.param_names.empty());
        CHECK(status.best_trial == "");
        for (const auto& trial : status.trials) {
            CHECK(trial.state == TrialState::Pending);
            CHECK_FALSE(trial.objective);
        }
    }
}

TEST_CASE("a search of many trials is read, deeply nested JSON is refused, not recursed into",
          "[search]") {
    SECTION("twenty thousand trials, numbered in creation order") {
        std::string items;
        for (int i = 0; i < 20000; ++i) {
            items +=
                (i ? "," : "") + fmt::format(R"({{"kind": "Trial", "metadata": {{"name": "t-{:05}",
                         "creationTimestamp": "2024-05-02T{:02}:{:02}:{:02}Z"}}}})",
                                             19999 - i, 5 + (19999 - i) / 3600,
                                             (19999 - i) / 60 % 60, (19999 - i) % 60);
        }
        auto read = read_texts(k_maximize_accuracy, items);
        REQUIRE(read);
        REQUIRE(read->status.trials.size() == 20000);
        CHECK(read->status.trials.front().name == "t-00000");
        CHECK(read->status.trials.back().name == "t-19999");
        CHECK(read->status.trials.back().index == 20000);
    }
    SECTION("a label nested a hundred thousand lists deep") {
        const std::string deep = std::string(100000, '[') + std::string(100000, ']');
        auto read = read_texts(
            std::string(R"({"kind": "Experiment", "metadata": {"name": "t", "labels": )") + deep +
                "}}",
            std::string(R"({"kind": "Trial", "metadata": {"name": "a", "labels": )") + deep + "}}");
        REQUIRE_FALSE(read);
        CHECK(read.error() ==
              "kubectl printed JSON nested deeper than 64 levels, which no "
              "Kubernetes object is");
    }
}
