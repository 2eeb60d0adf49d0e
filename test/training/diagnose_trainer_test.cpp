// kftrain diagnose on the real trainer diverging: its NaN stop is named divergence, with the
// trainer's own error event as the evidence. Built only with the trainer (test/CMakeLists.txt).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/local/local_fixture.h"

using namespace kftrain::test;

TEST_CASE("diagnose names the trainer's NaN stop at a learning rate of 10 divergence",
          "[diagnose][training][trainer]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/diverge.yaml";
    write_file(file,
               "name: diag-nan\nreplicas: 2\nrunPolicy: {backoffLimit: 0}\n"
               "env:\n  OMP_NUM_THREADS: \"1\"\n"
               "trainer: {dataset: synthetic, model: mlp, epochs: 2, samples: 4096, lr: 10, "
               "threads: 1, logEvery: 4}\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    auto status = jobs.wait_finished("diag-nan");
    REQUIRE(status.phase == kftrain::job::JobPhase::Failed);
    CliRun run = jobs.kftrain({"diagnose", "diag-nan", "--local", "-o", "json"});
    REQUIRE(run.code == 0);
    auto d = nlohmann::json::parse(run.out);
    CHECK(d["cause"] == "divergence");
    CHECK_THAT(d["why"].get<std::string>(), Catch::Contains("training diverged"));
    CHECK_THAT(d["hint"].get<std::string>(), Catch::Contains("trainer.lr"));
    CHECK_THAT(d["evidence"].back()["text"].get<std::string>(),
               Catch::Contains(R"("event":"error")"));
}

TEST_CASE("the trainer's progress lines carry every rank's compute time per step",
          "[diagnose][training][trainer]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/ranks.yaml";
    write_file(file,
               "name: rank-times\nreplicas: 2\nenv:\n  OMP_NUM_THREADS: \"1\"\n"
               "trainer: {dataset: synthetic, model: mlp, epochs: 1, samples: 1024, threads: 1, "
               "logEvery: 4}\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    REQUIRE(jobs.wait_finished("rank-times").phase == kftrain::job::JobPhase::Succeeded);
    const std::string raw = jobs.kftrain({"logs", "rank-times", "--local", "--raw"}).out;
    int reports = 0;
    std::istringstream lines(raw);
    std::string line;
    while (std::getline(lines, line)) {
        auto start = line.find('{');
        if (start == std::string::npos || line.find(R"("event":"progress")") == std::string::npos) {
            continue;
        }
        auto event = nlohmann::json::parse(line.substr(start));
        REQUIRE(event.contains("rank_step_s"));
        REQUIRE(event["rank_step_s"].size() == 2);
        CHECK(event["rank_step_s"][0].get<double>() > 0);
        CHECK(event["rank_step_s"][1].get<double>() > 0);
        ++reports;
    }
    CHECK(reports > 0);
}
