// Real jobs on this machine that kftrain-trainer places from the variables each operator sets:
// a 2-node TrainJob from Trainer v2's PET_* alone, and an elastic PyTorchJob whose PET_NNODES
// is the elasticPolicy's MIN:MAX. kftrain submits them with --local, with the operator's exact
// environment. Built only with the trainer (test/CMakeLists.txt), which CI always builds.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "backend/local/local_fixture.h"

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
    CHECK(status.phase == kftrain::job::JobPhase::Succeeded);
    REQUIRE(status.progress.has_value());
    CHECK(status.progress->event == "finish");

    // Both nodes joined one world of 2: node-1 is global rank 1, not a second rank 0.
    auto raw = jobs.kftrain({"logs", "v2-train", "--local", "--raw"});
    CHECK(raw.out.find(R"(node-0   | {"event":"start","rank":0,"world_size":2)") !=
          std::string::npos);
    CHECK(raw.out.find(R"(node-1   | {"event":"start","rank":1,"world_size":2)") !=
          std::string::npos);
}

TEST_CASE("an elastic PyTorchJob with two processes per pod trains locally from MIN:MAX",
          "[local][trainer]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/elastic.yaml";
    kftrain::test::write_file(file,
                              "name: elastic\n"
                              "replicas: 2\n"
                              "nprocPerNode: \"2\"\n"
                              "elasticPolicy:\n  minReplicas: 1\n  maxReplicas: 3\n"
                              "env:\n  OMP_NUM_THREADS: \"1\"\n"
                              "trainer:\n"
                              "  dataset: synthetic\n  model: mlp\n  epochs: 1\n"
                              "  batchSize: 32\n  samples: 512\n  threads: 1\n");
    auto run = jobs.kftrain({"submit", "-f", file, "--local", "--follow"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);

    auto status = jobs.wait_finished("elastic");
    CHECK(status.phase == kftrain::job::JobPhase::Succeeded);

    // The operator's PET_NNODES is the policy's range, not a node count; the two pods of two
    // processes each make one world of 4, the Worker's processes ranks 2 and 3.
    auto describe = jobs.kftrain({"describe", "elastic", "--local"});
    CHECK(describe.out.find("PET_NNODES=1:3") != std::string::npos);
    auto raw = jobs.kftrain({"logs", "elastic", "--local", "--raw"});
    for (const char* rank : {"0", "1", "2", "3"}) {
        INFO("rank " << rank);
        CHECK(raw.out.find(fmt::format(R"({{"event":"start","rank":{},"world_size":4)", rank)) !=
              std::string::npos);
    }
}
