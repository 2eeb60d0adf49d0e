#include "trainer/startup/device.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer;

namespace {

const TorchCuda k_cpu_build{false, 0};
const TorchCuda k_no_device{true, 0};

}  // namespace

TEST_CASE("the device is cpu or the CUDA device LOCAL_RANK % devices", "[trainer][device]") {
    struct Case {
        std::string flag;
        int local_rank;
        TorchCuda cuda;
        std::string device;
    };
    const std::vector<Case> cases = {
        {"auto", 0, k_cpu_build, "cpu"},  // Debian's libtorch: as before --device existed
        {"auto", 3, k_no_device, "cpu"},           {"auto", 0, TorchCuda{true, 1}, "cuda:0"},
        {"auto", 3, TorchCuda{true, 2}, "cuda:1"}, {"cpu", 1, TorchCuda{true, 2}, "cpu"},
        {"cuda", 2, TorchCuda{true, 4}, "cuda:2"}, {"cuda", 5, TorchCuda{true, 4}, "cuda:1"},
    };
    for (const auto& c : cases) {
        INFO(c.flag << " local rank " << c.local_rank << " devices " << c.cuda.devices);
        const auto got = choose_device(c.flag, c.local_rank, c.cuda);
        REQUIRE(got.ok());
        CHECK(*got == c.device);
    }
}

TEST_CASE("device cuda without a CUDA device names the flag, why and the value",
          "[trainer][device]") {
    const auto cpu_build = choose_device("cuda", 0, k_cpu_build);
    REQUIRE_FALSE(cpu_build.ok());
    CHECK(cpu_build.error() ==
          "--device: cuda needs a CUDA build of libtorch; this kftrain-trainer's libtorch is a "
          "CPU build (got cuda)");
    const auto hidden = choose_device("cuda", 0, k_no_device);
    REQUIRE_FALSE(hidden.ok());
    CHECK(hidden.error() ==
          "--device: cuda needs a visible CUDA device; libtorch sees none (check "
          "CUDA_VISIBLE_DEVICES and the driver) (got cuda)");
    const auto bad = choose_device("gpu", 0, TorchCuda{true, 1});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error() == "--device: must be one of auto, cpu, cuda (got gpu)");
}

TEST_CASE("memory format auto runs convolutions channels last on the CPU only",
          "[trainer][device]") {
    CHECK(choose_channels_last("auto", true, false));
    CHECK_FALSE(choose_channels_last("auto", true, true));    // CUDA: not measured, contiguous
    CHECK_FALSE(choose_channels_last("auto", false, false));  // mlp: nothing to lay out
    CHECK(choose_channels_last("channels-last", true, true));
    CHECK_FALSE(choose_channels_last("contiguous", true, false));
}
