#include "tune/tune_spec.h"

#include <catch2/catch.hpp>
#include <limits>

#include "manifest/load.h"
#include "support/jobs.h"
#include "tune/katib_checks.h"

using namespace kftrain;

namespace {

const std::string k_job =
    "name: mnist-tune\n"
    "trainer:\n"
    "  lr: 0.01\n"
    "tune:\n"
    "  params:\n"
    "    lr: 0.001:0.1:log\n"
    "    momentum: 0.5:0.95\n"
    "  objective: loss\n"
    "  maxTrials: 8\n"
    "  parallel: 2\n";

}  // namespace

TEST_CASE("the job file's tune section makes the search, flags override it", "[tune]") {
    auto from_file = tune::build_tune_spec(test::load_job(k_job), {});
    REQUIRE(from_file);
    CHECK(from_file->name == "mnist-tune");
    REQUIRE(from_file->params.size() == 2);
    CHECK(from_file->params[0].name == "lr");
    CHECK(from_file->where[0] == "job.yaml:6: tune.params.lr");
    CHECK(from_file->objective.metric == "loss");
    CHECK_FALSE(from_file->objective.maximize);
    CHECK(from_file->max_trials == 8);
    CHECK(from_file->parallel == 2);
    CHECK(from_file->max_failed_trials == 3);
    CHECK(from_file->algorithm == "random");

    tune::TuneFlags flags;
    flags.params = {"lr=0.01:0.5", "batchSize=32,64"};
    flags.objective = "accuracy";
    flags.goal = 0.97;
    flags.max_trials = 4;
    flags.algorithm = "grid";
    flags.name = "lr-sweep";
    auto overridden = tune::build_tune_spec(test::load_job(k_job), flags);
    REQUIRE(overridden);
    CHECK(overridden->name == "lr-sweep");
    REQUIRE(overridden->params.size() == 3);
    CHECK(overridden->params[0].max == "0.5");
    CHECK(overridden->where[0] == "--param lr=0.01:0.5");
    CHECK(overridden->params[2].name == "batchSize");
    CHECK(overridden->objective.maximize);
    CHECK(overridden->objective.goal == 0.97);
    CHECK(overridden->max_trials == 4);
    CHECK(overridden->parallel == 2);
    CHECK(overridden->algorithm == "grid");
}

TEST_CASE("bad tune input names the flag or key and the value", "[tune]") {
    struct Case {
        std::string name;
        std::string job;
        tune::TuneFlags flags;
        std::string message;
    };
    tune::TuneFlags no_flags;
    auto with = [](auto change) {
        tune::TuneFlags flags;
        flags.params = {"lr=0.001:0.1"};
        change(flags);
        return flags;
    };
    const std::vector<Case> cases = {
        {"nothing to search", "name: a\n", no_flags,
         "tune: nothing to search: give --param NAME=SPACE (e.g. --param lr=0.001:0.1:log) or "
         "tune.params in the job file"},
        {"a bad key in the file", "name: a\ntune:\n  params:\n    lr: 1:0.5\n", no_flags,
         "job.yaml:4: tune.params.lr: min 1 must be below max 0.5"},
        {"an unknown metric", "name: a\n", with([](auto& f) { f.objective = "f1"; }),
         "--objective: kftrain-trainer reports accuracy and loss from its held-out evaluation "
         "(got \"f1\")"},
        {"a bad direction", "name: a\n", with([](auto& f) { f.objective = "loss:lowest"; }),
         "--objective: the direction must be maximize or minimize (got \"lowest\")"},
        {"an unknown algorithm", "name: a\n", with([](auto& f) { f.algorithm = "randm"; }),
         "--algorithm: must be one of random, grid, bayesianoptimization, tpe (got \"randm\") "
         "(did you mean random?)"},
        {"a job with its own command, given a trainer key",
         "name: a\ncommand: [python3, train.py]\n", with([](auto&) {}),
         "--param lr=0.001:0.1: the job file uses no ${trialParameters.lr} in command, args or "
         "env (it uses none); a job with its own command is tuned through the placeholders it "
         "uses"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto spec = tune::build_tune_spec(test::load_job(c.job), c.flags);
        REQUIRE_FALSE(spec);
        CHECK(spec.error() == c.message);
    }
}

TEST_CASE("a search Katib's webhook would refuse is refused before anything starts", "[tune]") {
    struct Case {
        std::string name;
        std::vector<std::string> params;
        std::function<void(tune::TuneSpec&)> change;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"a name Katib refuses",
         {"lr=0.01:0.1"},
         [](auto& s) { s.name = "Mnist_Tune"; },
         "--name (tune.name, default the job's name) \"Mnist_Tune\": a search's name must be "
         "lower-case letters, digits and '-', start with a letter, end with a letter or digit, "
         "and be at most 40 characters (Katib's limit)"},
        {"a name over 40 characters",
         {"lr=0.01:0.1"},
         [](auto& s) { s.name = std::string(41, 'a'); },
         "--name (tune.name, default the job's name) \"" + std::string(41, 'a') +
             "\": a search's name must be lower-case letters, digits and '-', start with a "
             "letter, end with a letter or digit, and be at most 40 characters (Katib's limit)"},
        {"no trials",
         {"lr=0.01:0.1"},
         [](auto& s) { s.max_trials = 0; },
         "--max-trials (tune.maxTrials): must be greater than 0 (got 0)"},
        {"no parallel trials",
         {"lr=0.01:0.1"},
         [](auto& s) { s.parallel = 0; },
         "--parallel (tune.parallel): must be greater than 0 (got 0)"},
        {"negative failures",
         {"lr=0.01:0.1"},
         [](auto& s) { s.max_failed_trials = -1; },
         "--max-failed-trials (tune.maxFailedTrials): must not be less than 0 (got -1)"},
        {"more parallel than trials",
         {"lr=0.01:0.1"},
         [](auto& s) {
             s.max_trials = 2;
             s.parallel = 3;
             s.max_failed_trials = 1;
         },
         "--parallel (tune.parallel) 3: must be at most --max-trials (tune.maxTrials) 2"},
        {"more failures than trials",
         {"lr=0.01:0.1"},
         [](auto& s) {
             s.max_trials = 2;
             s.parallel = 1;
         },
         "--max-failed-trials (tune.maxFailedTrials) 3: must be at most --max-trials "
         "(tune.maxTrials) 2"},
        {"an accuracy goal above 1",
         {"lr=0.01:0.1"},
         [](auto& s) { s.objective.goal = 99; },
         "--goal (tune.goal) 99: accuracy is a fraction from 0 to 1"},
        {"a goal that is no number",
         {"lr=0.01:0.1"},
         [](auto& s) { s.objective.goal = std::numeric_limits<double>::quiet_NaN(); },
         "--goal (tune.goal) nan: must be a finite number"},
        {"grid without a step",
         {"lr=0.01:0.1"},
         [](auto& s) { s.algorithm = "grid"; },
         "--param lr=0.01:0.1: grid search needs a step for a range of numbers, e.g. "
         "lr=0.01:0.1:step=S (Katib's grid requires it)"},
        {"grid smaller than the trials",
         {"batchSize=32,64", "optimizer=sgd,adam"},
         [](auto& s) { s.algorithm = "grid"; },
         "--max-trials (tune.maxTrials) 12: the grid has only 4 points; lower it to 4 or widen "
         "the grid"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        tune::TuneFlags flags;
        flags.params = c.params;
        auto spec = tune::build_tune_spec(test::load_job("name: mnist-tune\n"), flags);
        REQUIRE(spec);
        c.change(*spec);
        auto checked = tune::check_tune_spec(*spec);
        REQUIRE_FALSE(checked);
        CHECK(checked.error() == c.message);
    }
}

TEST_CASE("default parallel and failed-trial counts never exceed the trials asked for", "[tune]") {
    for (int trials : {1, 2}) {
        INFO(trials);
        tune::TuneFlags flags;
        flags.params = {"lr=0.01:0.1"};
        flags.max_trials = trials;
        auto spec = tune::build_tune_spec(test::load_job("name: mnist-tune\n"), flags);
        REQUIRE(spec);
        CHECK(spec->parallel == trials);
        CHECK(spec->max_failed_trials == trials);
        CHECK(tune::check_tune_spec(*spec));
    }
    // A count the user gave is kept, and refused when over the trials.
    tune::TuneFlags flags;
    flags.params = {"lr=0.01:0.1"};
    flags.max_trials = 2;
    flags.parallel = 3;
    auto spec = tune::build_tune_spec(test::load_job("name: mnist-tune\n"), flags);
    REQUIRE(spec);
    CHECK(spec->parallel == 3);
    CHECK_FALSE(tune::check_tune_spec(*spec));
}

TEST_CASE("a grid search given no trial count tries each point of a small grid once", "[tune]") {
    struct Case {
        std::string name;
        std::string job;
        std::vector<std::string> params;
        int max_trials;
        int parallel;
    };
    const std::vector<Case> cases = {
        {"4 points", "name: mnist-tune\n", {"batchSize=32,64", "optimizer=sgd,adam"}, 4, 3},
        {"2 points", "name: mnist-tune\n", {"batchSize=32,64"}, 2, 2},
        {"20 points: the default", "name: mnist-tune\n", {"lr=0.01:0.2:step=0.01"}, 12, 3},
        {"algorithm from the job file",
         "name: mnist-tune\ntune:\n  algorithm: grid\n",
         {"batchSize=32,64,128"},
         3,
         3},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        tune::TuneFlags flags;
        flags.params = c.params;
        if (c.job.find("algorithm") == std::string::npos) {
            flags.algorithm = "grid";
        }
        auto spec = tune::build_tune_spec(test::load_job(c.job), flags);
        REQUIRE(spec);
        CHECK(spec->max_trials == c.max_trials);
        CHECK(spec->parallel == c.parallel);
        CHECK(spec->max_failed_trials == std::min(3, c.max_trials));
        CHECK(tune::check_tune_spec(*spec));
    }
    // A count the user gave is kept, and refused where the grid is smaller.
    tune::TuneFlags flags;
    flags.params = {"batchSize=32,64", "optimizer=sgd,adam"};
    flags.algorithm = "grid";
    flags.max_trials = 12;
    auto spec = tune::build_tune_spec(test::load_job("name: mnist-tune\n"), flags);
    REQUIRE(spec);
    CHECK(spec->max_trials == 12);
    auto checked = tune::check_tune_spec(*spec);
    REQUIRE_FALSE(checked);
    CHECK(checked.error() ==
          "--max-trials (tune.maxTrials) 12: the grid has only 4 points; lower it to 4 or widen "
          "the grid");
}

TEST_CASE("a grid with a step on every range and enough points passes", "[tune]") {
    tune::TuneFlags flags;
    flags.params = {"lr=0.01:0.05:step=0.01", "batchSize=32,64"};
    flags.algorithm = "grid";
    flags.max_trials = 10;
    auto spec = tune::build_tune_spec(test::load_job("name: mnist-tune\n"), flags);
    REQUIRE(spec);
    CHECK(tune::check_tune_spec(*spec));
}
