// A real local search: `kftrain tune --local` runs 4 trials of kftrain-trainer on synthetic
// data over a log range of lr, each a local job with its own state and logs, and finds a
// better lr than its worst trial's. Built only with the trainer (test/CMakeLists.txt), which
// CI always builds.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/search/local_search.h"
#include "local/local_fixture.h"

using kftrain::test::LocalJobs;
using kftrain::tune::TrialRecord;

TEST_CASE("a local search of the real trainer finds a better lr than its worst trial",
          "[local][trainer][search]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/lr-search.yaml";
    // One epoch of an MLP: below lr 0.05 (SGD, momentum 0.9) a larger lr learns more, so the
    // best trial has the larger lr; the draws are seeded by the search's name.
    kftrain::test::write_file(file,
                              "name: lr-search\n"
                              "replicas: 1\n"
                              "env:\n  OMP_NUM_THREADS: \"1\"\n"
                              "trainer:\n"
                              "  dataset: synthetic\n  model: mlp\n  epochs: 1\n"
                              "  batchSize: 32\n  samples: 1024\n  threads: 1\n"
                              "tune:\n"
                              "  params:\n    lr: 0.0005:0.05:log\n"
                              "  objective: accuracy\n"
                              "  maxTrials: 4\n  parallel: 2\n  maxFailedTrials: 0\n"
                              "  algorithm: random\n");
    auto run = jobs.kftrain({"tune", "-f", file, "--local"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);

    std::ostringstream notes;
    kftrain::cli::search::LocalSearch searches(notes, KFTRAIN_BINARY);
    auto status = searches.status("lr-search");
    REQUIRE(status.ok());
    CHECK(status->phase == "Succeeded");
    REQUIRE(status->trials.size() == 4);
    const TrialRecord* best = nullptr;
    const TrialRecord* worst = nullptr;
    for (const auto& trial : status->trials) {
        INFO(trial.name);
        REQUIRE(trial.state == kftrain::tune::TrialState::Succeeded);
        REQUIRE(trial.objective.has_value());
        if (best == nullptr || *trial.objective > *best->objective) {
            best = &trial;
        }
        if (worst == nullptr || *trial.objective < *worst->objective) {
            worst = &trial;
        }
        // Each trial ran as its own job, with its own state and logs holding its metric line.
        CHECK(std::filesystem::exists(kftrain::cli::local::state_path(trial.name)));
        CHECK(kftrain::test::contains_line(jobs.log_lines(trial.name), "master-0 | "));
        CHECK(kftrain::test::contains_line(jobs.log_lines(trial.name), " accuracy="));
    }
    CHECK(status->best_trial == best->name);
    CHECK(*best->objective > *worst->objective);
    CHECK(std::stod(best->params.at(0).second) > std::stod(worst->params.at(0).second));

    // tune status, as a user runs it from another terminal, marks the best trial.
    auto shown = jobs.kftrain({"tune", "status", "lr-search", "--local"});
    INFO(shown.out << shown.err);
    CHECK(shown.code == 0);
    CHECK(shown.out.find("\n" + std::to_string(best->index) + "*  ") != std::string::npos);
    CHECK(shown.out.find("Best: trial " + std::to_string(best->index) + " (accuracy=") !=
          std::string::npos);
    auto json = jobs.kftrain({"tune", "status", "lr-search", "--local", "-o", "json"});
    REQUIRE(json.code == 0);
    CHECK(nlohmann::json::parse(json.out)["bestTrial"]["name"] == best->name);
}
