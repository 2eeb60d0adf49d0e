// --backend nccl where it cannot run: exit 2 with one error line before anything trains.
// CUDA_VISIBLE_DEVICES="" hides any GPU, so these cases hold on GPU hosts too.
#include <filesystem>

#include "trainer/comm/nccl_group.h"
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> nccl_args(const std::string& dir) {
    return {"--backend",    "nccl", "--model",   "mlp", "--samples",        "64",
            "--log-format", "json", "--timeout", "10",  "--checkpoint-dir", dir + "/checkpoints"};
}

std::map<std::string, std::string> no_gpu_env(const std::string& dir) {
    return {{"CUDA_VISIBLE_DEVICES", ""}, {"KFTRAIN_PARAMS_OUT", dir + "/params"}};
}

// Check that a refused rank printed only the --backend error and left nothing behind.
void check_refused(const std::string& dir, const Rank& r) {
    CHECK(wait_exit(r, 30s) == 2);
    CHECK(read_bytes(r.out_path).empty());  // no start event: nothing was trained
    const auto err = read_bytes(r.err_path);
    if (kftrain::trainer::comm::probe_cuda().nccl_built) {
        CHECK_THAT(err, Catch::StartsWith("kftrain-trainer: error: --backend: nccl needs a "
                                          "visible CUDA device; cudaGetDeviceCount "));
        CHECK_THAT(err, Catch::EndsWith(" (got nccl)\n"));
    } else {
        CHECK(err ==
              "kftrain-trainer: error: --backend: nccl needs kftrain-trainer built with NCCL (the "
              "CUDA toolkit's nccl.h and libnccl); this build has only gloo (got nccl)\n");
    }
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    // Only the ranks' own output files: no checkpoint directory, no parameter dump.
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const auto ext = entry.path().extension();
        CHECK((ext == ".out" || ext == ".err"));
    }
}

}  // namespace

TEST_CASE("backend nccl without a usable GPU exits 2 naming the flag and why", "[trainer][nccl]") {
    const std::string dir = make_temp_dir();
    const auto run = start_trainer(dir, "single", nccl_args(dir), no_gpu_env(dir));
    check_refused(dir, run);
}

TEST_CASE("2 ranks with --backend nccl and no usable GPU both exit 2 before connecting",
          "[trainer][nccl]") {
    const std::string dir = make_temp_dir();
    const auto ranks = start_job(dir, 2, nccl_args(dir), no_gpu_env(dir));
    for (const auto& r : ranks) {
        check_refused(dir, r);
    }
}
