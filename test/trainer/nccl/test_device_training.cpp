// The model and data on CUDA devices (--device cuda), through the real program. ctest runs
// these only where the trainer's libtorch is a CUDA build and enough devices are visible
// (nccl_main.cpp with --cuda-libtorch); elsewhere they are reported skipped.
#include <cmath>

#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

// An mlp run of samples / 32 steps per epoch on device.
std::vector<std::string> mlp_args(const std::string& device, int samples, int epochs,
                                  const std::string& checkpoints = "") {
    std::vector<std::string> args{"--model",      "mlp",  "--samples", std::to_string(samples),
                                  "--batch-size", "32",   "--epochs",  std::to_string(epochs),
                                  "--log-format", "json", "--threads", "1",
                                  "--device",     device, "--timeout", "60"};
    if (!checkpoints.empty()) {
        args.insert(args.end(), {"--checkpoint-dir", checkpoints});
    }
    return args;
}

// Run one rank to its end (parameters dumped to tag.rank0) and require exit 0.
Rank run_one(const std::string& dir, const std::string& tag, const std::vector<std::string>& args) {
    const auto r = start_trainer(dir, tag, args, {{"KFTRAIN_PARAMS_OUT", dir + "/" + tag}});
    const int code = wait_exit(r, 120s);
    INFO(tag << ": " << read_bytes(r.err_path));
    REQUIRE(code == 0);
    return r;
}

float worst_difference(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    REQUIRE(!a.empty());
    float worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(a[i] - b[i]));
    }
    return worst;
}

// Check a run's start: where it trained and the step it resumed from.
void check_start(const Rank& r, const std::string& device, int64_t resumed_from) {
    const auto start = events(r, "start").at(0);
    CHECK(start["device"] == device);
    CHECK(start["resumed_from"] == resumed_from);
}

}  // namespace

TEST_CASE("one rank with --device cuda reaches 80% test accuracy on synthetic MNIST in 3 epochs",
          "[one-gpu-model]") {
    const std::string dir = make_temp_dir();
    const auto make = start_trainer(
        dir, "make", {"make-dataset", "mnist", "--out", dir + "/mnist", "--samples", "3000"}, {});
    REQUIRE(wait_exit(make, 60s) == 0);
    const auto run = run_one(
        dir, "train",
        {"--dataset", "mnist", "--data-dir", dir + "/mnist", "--model", "mlp", "--epochs", "3",
         "--batch-size", "32", "--log-format", "json", "--threads", "1", "--device", "cuda"});
    CHECK(events(run, "start").at(0)["device"] == "cuda:0");
    const auto evals = events(run, "eval");
    REQUIRE(evals.size() == 3);
    CHECK(evals.back()["samples"] == 600);
    CHECK(evals.back()["accuracy"].get<double>() >= 0.80);
}

TEST_CASE("a checkpoint written on the CPU resumes on a GPU where the CPU run would have gone",
          "[one-gpu-model]") {
    const std::string dir = make_temp_dir();
    run_one(dir, "cpu1", mlp_args("cpu", 256, 1, dir + "/ckpt"));
    const auto gpu = run_one(dir, "gpu2", mlp_args("cuda", 256, 2, dir + "/ckpt"));
    check_start(gpu, "cuda:0", 8);
    CHECK(events(gpu, "finish").at(0)["global_step"] == 16);
    // Two epochs on the CPU alone: the same weights but for CPU and GPU rounding, which they
    // would not be if the momentum buffers had been lost on the way.
    run_one(dir, "cpu-only", mlp_args("cpu", 256, 2));
    CHECK(worst_difference(read_params(dir + "/gpu2.rank0"), read_params(dir + "/cpu-only.rank0")) <
          1e-4f);
}

TEST_CASE("a checkpoint written on a GPU resumes on a GPU and on the CPU", "[one-gpu-model]") {
    const std::string dir = make_temp_dir();
    run_one(dir, "gpu1", mlp_args("cuda", 256, 1, dir + "/ckpt"));
    const auto gpu = run_one(dir, "gpu2", mlp_args("cuda", 256, 2, dir + "/ckpt"));
    check_start(gpu, "cuda:0", 8);
    const auto cpu = run_one(dir, "cpu3", mlp_args("cpu", 256, 3, dir + "/ckpt"));
    check_start(cpu, "cpu", 16);
    CHECK(events(cpu, "finish").at(0)["global_step"] == 24);
    run_one(dir, "gpu-only", mlp_args("cuda", 256, 3));
    CHECK(worst_difference(read_params(dir + "/cpu3.rank0"), read_params(dir + "/gpu-only.rank0")) <
          1e-4f);
}

TEST_CASE("2 ranks with --device cuda take a GPU each and end with identical parameters",
          "[two-gpus-model]") {
    const std::string dir = make_temp_dir();
    // No LOCAL_RANK, as the local backend runs replicas: a loopback master makes it the rank.
    const auto gpus =
        start_job(dir, 2, mlp_args("cuda", 600, 1), {{"KFTRAIN_PARAMS_OUT", dir + "/gpu"}});
    for (const auto& r : gpus) {
        const int code = wait_exit(r, 120s);
        INFO(read_bytes(r.err_path));
        REQUIRE(code == 0);
    }
    const auto first = events(gpus[0], "start").at(0);
    CHECK(first["backend"] == "nccl");  // auto: the model is on CUDA and NCCL is built in
    CHECK(first["device"] == "cuda:0");
    CHECK(events(gpus[1], "start").at(0)["device"] == "cuda:1");
    const auto params = read_params(dir + "/gpu.rank0");
    REQUIRE(!params.empty());
    CHECK(read_params(dir + "/gpu.rank1") == params);
    // The same job on the CPU (auto: shared memory, both ranks on this host): the same
    // weights but for rounding.
    const std::string cpu_dir = make_temp_dir();
    const auto cpus =
        start_job(cpu_dir, 2, mlp_args("cpu", 600, 1), {{"KFTRAIN_PARAMS_OUT", cpu_dir + "/cpu"}});
    for (const auto& r : cpus) {
        CHECK(wait_exit(r, 120s) == 0);
    }
    CHECK(events(cpus[0], "start").at(0)["backend"] == "shm");
    CHECK(worst_difference(params, read_params(cpu_dir + "/cpu.rank0")) < 1e-4f);
}
