// A real 2-node TrainJob on this machine: kftrain submits it with --local and
// kftrain-trainer starts from Trainer v2's PET_* variables alone, derives its
// rank and world size, and trains with its peer over Gloo. Built only with
// the trainer (test/CMakeLists.txt), which CI always builds.
#include <catch2/catch.hpp>

#include "local/local_fixture.h"

using kftrain::test::LocalJobs;

TEST_CASE("a 2-node TrainJob trains locally with the real trainer from PET_* alone",
          "[local][trainer]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/v2-train.yaml";
    kftrain::test::write_file(file,
                              "kind: TrainJob\n"
                              "name: v2-train\n"
                              "replicas: 2\n"
                              "nprocPerNode: \"1\"\n"
                              "env:\n  OMP_NUM_THREADS: \"1\"\n"
                              "trainer:\n"
                              "  dataset: synthetic\n  model: mlp\n  epochs: 1\n"
                              "  batchSize: 32\n  samples: 512\n  threads: 1\n");
    auto run = jobs.kftrain({"submit", "-f", file, "--local", "--follow"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);

    auto status = jobs.wait_finished("v2-train");
    CHECK(status.kind == "TrainJob");
    CHECK(status.phase == kftrain::cli::job::JobPhase::Succeeded);
    REQUIRE(status.progress.has_value());
    CHECK(status.progress->event == "finish");

    // Both nodes joined one world of 2: node-1 is global rank 1, not a second rank 0.
    auto raw = jobs.kftrain({"logs", "v2-train", "--local", "--raw"});
    CHECK(raw.out.find(R"(node-0   | {"event":"start","rank":0,"world_size":2)") !=
          std::string::npos);
    CHECK(raw.out.find(R"(node-1   | {"event":"start","rank":1,"world_size":2)") !=
          std::string::npos);
}
