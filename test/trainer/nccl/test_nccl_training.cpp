// Training over NCCL on real GPUs, through the real program. ctest runs these only where
// enough CUDA devices are visible (see nccl_main.cpp); elsewhere they are reported skipped.
#include <csignal>

#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> mlp_args(int samples, int batch, const std::string& backend,
                                  int timeout_s = 60) {
    return {"--model",      "mlp",
            "--samples",    std::to_string(samples),
            "--batch-size", std::to_string(batch),
            "--epochs",     "1",
            "--log-format", "json",
            "--log-every",  "5",
            "--threads",    "1",
            "--backend",    backend,
            "--timeout",    std::to_string(timeout_s)};
}

// Start world ranks on 127.0.0.1, rank r on GPU r (LOCAL_RANK, as torchrun sets it).
std::vector<Rank> start_gpu_job(const std::string& dir, const std::string& tag, int world,
                                const std::vector<std::string>& args) {
    std::map<std::string, std::string> env{{"MASTER_ADDR", "127.0.0.1"},
                                           {"MASTER_PORT", std::to_string(free_port())},
                                           {"WORLD_SIZE", std::to_string(world)},
                                           {"KFTRAIN_PARAMS_OUT", dir + "/" + tag}};
    std::vector<Rank> ranks;
    for (int r = 0; r < world; ++r) {
        env["RANK"] = env["LOCAL_RANK"] = std::to_string(r);
        ranks.push_back(start_trainer(dir, tag + std::to_string(r), args, env));
    }
    return ranks;
}

void check_all_exit_zero(const std::vector<Rank>& ranks) {
    for (const auto& r : ranks) {
        INFO(read_bytes(r.err_path));
        CHECK(wait_exit(r, 120s) == 0);
    }
}

float worst_difference(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    float worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(a[i] - b[i]));
    }
    return worst;
}

}  // namespace

TEST_CASE("one rank with --backend nccl passes the GPU check and trains", "[one-gpu]") {
    const std::string dir = make_temp_dir();
    const auto run = start_trainer(dir, "single", mlp_args(64, 32, "nccl"), {});
    CHECK(wait_exit(run, 60s) == 0);
    CHECK(events(run, "finish").size() == 1);
}

TEST_CASE("2 ranks over NCCL end training with identical parameters", "[two-gpus]") {
    const std::string dir = make_temp_dir();
    const auto ranks = start_gpu_job(dir, "nccl", 2, mlp_args(600, 32, "nccl"));
    check_all_exit_zero(ranks);
    REQUIRE(events(ranks[0], "start").size() == 1);
    CHECK(events(ranks[0], "start")[0]["backend"] == "nccl");
    CHECK(events(ranks[0], "finish").size() == 1);
    const auto first = read_params(dir + "/nccl.rank0");
    REQUIRE(!first.empty());
    CHECK(read_params(dir + "/nccl.rank1") == first);
}

TEST_CASE("2 ranks over NCCL with batch B match 1 rank with batch 2B after one step",
          "[two-gpus]") {
    const std::string dir = make_temp_dir();
    const auto two = start_gpu_job(dir, "two", 2, mlp_args(64, 32, "nccl"));
    const auto one = start_gpu_job(dir, "one", 1, mlp_args(64, 64, "gloo"));
    check_all_exit_zero(two);
    check_all_exit_zero(one);
    REQUIRE(events(two[0], "finish").at(0)["global_step"] == 1);
    CHECK(worst_difference(read_params(dir + "/one.rank0"), read_params(dir + "/two.rank0")) <
          1e-5f);
}

TEST_CASE("2 ranks over NCCL match 2 ranks over Gloo after an epoch", "[two-gpus]") {
    const std::string dir = make_temp_dir();
    const auto nccl = start_gpu_job(dir, "nccl", 2, mlp_args(600, 32, "nccl"));
    check_all_exit_zero(nccl);
    const auto gloo = start_gpu_job(dir, "gloo", 2, mlp_args(600, 32, "gloo"));
    check_all_exit_zero(gloo);
    CHECK(events(gloo[0], "start").at(0)["backend"] == "gloo");
    CHECK(worst_difference(read_params(dir + "/nccl.rank0"), read_params(dir + "/gloo.rank0")) <
          1e-4f);
}

TEST_CASE("killing one NCCL rank makes the other exit 1 within the timeout", "[two-gpus]") {
    const std::string dir = make_temp_dir();
    const auto ranks = start_gpu_job(dir, "nccl", 2, mlp_args(200000, 16, "nccl", 10));
    REQUIRE(wait_for_output(ranks[0], "\"event\":\"progress\"", 60s));
    ::kill(ranks[1].pid, SIGKILL);
    wait_exit(ranks[1], 10s);
    CHECK(wait_exit(ranks[0], 40s) == 1);
    REQUIRE(events(ranks[0], "error").size() == 1);
}

TEST_CASE("an NCCL peer that hangs makes the other exit 1 after --timeout", "[two-gpus]") {
    const std::string dir = make_temp_dir();
    const auto ranks = start_gpu_job(dir, "nccl", 2, mlp_args(200000, 16, "nccl", 3));
    REQUIRE(wait_for_output(ranks[0], "\"event\":\"progress\"", 60s));
    ::kill(ranks[1].pid, SIGSTOP);
    CHECK(wait_exit(ranks[0], 40s) == 1);
    ::kill(ranks[1].pid, SIGKILL);
    wait_exit(ranks[1], 10s);
    // Kernels the stopped rank queued still run, so either NCCL or Gloo may be the one waiting.
    REQUIRE(events(ranks[0], "error").size() == 1);
}
