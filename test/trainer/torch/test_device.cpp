// --device through the real program: refused with exit 2 and one line where no CUDA device is
// visible, and the start event names the device. CUDA_VISIBLE_DEVICES="" hides any GPU, so
// these cases hold on GPU hosts too.
#include <filesystem>

#include "trainer/startup/device.h"
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> small_args(const std::string& dir, const std::string& device) {
    return {"--model",      "mlp",  "--samples", "64", "--batch-size",     "32",
            "--log-format", "json", "--threads", "1",  "--checkpoint-dir", dir + "/checkpoints",
            "--device",     device};
}

std::map<std::string, std::string> no_gpu_env(const std::string& dir) {
    return {{"CUDA_VISIBLE_DEVICES", ""}, {"KFTRAIN_PARAMS_OUT", dir + "/params"}};
}

// Tell whether this libtorch is a CUDA build (then only the hidden devices are missing).
bool cuda_libtorch() {
    return kftrain::trainer::probe_torch_cuda().built;
}

const std::string k_none_visible =
    "needs a visible CUDA device; libtorch sees none (check CUDA_VISIBLE_DEVICES and the driver)";

// Check that a refused run printed exactly error and left nothing behind.
void check_refused(const std::string& dir, const Rank& r, const std::string& error) {
    CHECK(wait_exit(r, 30s) == 2);
    CHECK(read_bytes(r.out_path).empty());  // no start event: nothing was trained
    CHECK(read_bytes(r.err_path) == "kftrain-trainer: error: " + error + "\n");
    // Only the run's own output files: no checkpoint directory, no parameter dump.
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const auto ext = entry.path().extension();
        CHECK((ext == ".out" || ext == ".err"));
    }
}

}  // namespace

TEST_CASE("device cuda without a visible CUDA device exits 2 naming the flag and why",
          "[trainer][device]") {
    const std::string dir = make_temp_dir();
    const auto run = start_trainer(dir, "single", small_args(dir, "cuda"), no_gpu_env(dir));
    check_refused(dir, run,
                  cuda_libtorch() ? "--device: cuda " + k_none_visible + " (got cuda)"
                                  : "--device: cuda needs a CUDA build of libtorch; this "
                                    "kftrain-trainer's libtorch is a CPU build (got cuda)");
}

TEST_CASE("PET_NPROC_PER_NODE=gpu without a visible CUDA device exits 2 naming it",
          "[trainer][device]") {
    const std::string dir = make_temp_dir();
    auto env = no_gpu_env(dir);
    env["PET_NPROC_PER_NODE"] = "gpu";
    const auto run = start_trainer(dir, "single", small_args(dir, "auto"), env);
    check_refused(dir, run,
                  cuda_libtorch() ? "PET_NPROC_PER_NODE: gpu " + k_none_visible + " (got gpu)"
                                  : "PET_NPROC_PER_NODE: gpu needs a CUDA build of "
                                    "kftrain-trainer; this one runs on CPU (got gpu)");
}

TEST_CASE("device cpu, and auto without a GPU, train on the CPU and say so in the start event",
          "[trainer][device]") {
    for (const char* device : {"cpu", "auto"}) {
        INFO(device);
        const std::string dir = make_temp_dir();
        const auto run = start_trainer(dir, "single", small_args(dir, device), no_gpu_env(dir));
        CHECK(wait_exit(run, 60s) == 0);
        REQUIRE(events(run, "start").size() == 1);
        CHECK(events(run, "start")[0]["device"] == "cpu");
        CHECK(events(run, "finish").size() == 1);
    }
}
