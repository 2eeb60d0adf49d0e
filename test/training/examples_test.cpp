// `make -C examples local` as docs/running-jobs.md's user runs it: kftrain-trainer makes the
// synthetic MNIST-format data set the example job file mounts, and the example's 2 replicas
// train on it with the real trainer. Built only with the trainer (test/CMakeLists.txt), which CI
// always builds; packaging/examples_test.cpp runs the same target with the fake replica.
#include <catch2/catch.hpp>
#include <filesystem>

#include "backend/local/local_fixture.h"
#include "support/paths.h"
#include "util/run.h"

using kftrain::test::LocalJobs;

TEST_CASE("make local makes the data set and trains examples/mnist-local.yaml here",
          "[examples][local][trainer]") {
    LocalJobs jobs;
    const std::string work = jobs.dir() + "/work";
    kftrain::util::RunOptions options;
    options.argv = {"make",
                    "--no-print-directory",
                    "-C",
                    std::string(kftrain::test::source_dir()) + "/examples",
                    "local",
                    std::string("KFTRAIN=") + kftrain::test::kftrain_binary(),
                    "WORK=" + work,
                    "SAMPLES=512",
                    "SET=--set trainer.epochs=1 --set trainer.logEvery=4"};
    options.env = {{"MAKEFLAGS", ""}, {"MAKELEVEL", ""}, {"MFLAGS", ""}};
    options.timeout = std::chrono::minutes(10);
    auto run = kftrain::util::run(options);
    REQUIRE(run.ok());
    INFO(run->out << run->err);
    CHECK(run->status.success());
    CHECK(std::filesystem::exists(work + "/data/mnist/train-images-idx3-ubyte"));
    CHECK(run->out.find("job mnist-local started (local)\n") != std::string::npos);
    CHECK(jobs.wait_finished("mnist-local").phase == kftrain::job::JobPhase::Succeeded);
    CHECK(std::filesystem::is_directory(work + "/checkpoints/mnist-local"));
}
