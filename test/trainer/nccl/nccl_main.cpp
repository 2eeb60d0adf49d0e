// Main of the GPU tests. The first argument is how many CUDA devices the selected tests need,
// then --cuda-libtorch when they put the model on those devices (--device cuda), which needs
// the trainer's libtorch to be a CUDA build. On a machine or build that falls short, exit 77,
// which ctest reports as skipped (SKIP_RETURN_CODE): Catch2 2.x has no skip of its own.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "trainer/comm/nccl_group.h"
#include "trainer/startup/device.h"

namespace {

constexpr int k_exit_skipped = 77;

// Say what this machine or build lacks for tests needing need devices; empty when nothing.
std::string missing(int need, bool cuda_libtorch) {
    const auto facts = kftrain::trainer::comm::probe_cuda();
    if (!facts.nccl_built) {
        return "this build has no NCCL";
    }
    if (!facts.error.empty()) {
        return "cudaGetDeviceCount: " + facts.error;
    }
    if (facts.devices < need) {
        return std::to_string(facts.devices) + " visible";
    }
    if (cuda_libtorch) {
        const auto torch = kftrain::trainer::probe_torch_cuda();
        if (!torch.built) {
            return "the trainer's libtorch is a CPU build";
        }
        if (torch.devices < need) {
            return "libtorch sees " + std::to_string(torch.devices);
        }
    }
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: trainer_nccl_tests DEVICES [--cuda-libtorch] [catch2 arguments]\n";
        return 2;
    }
    const int need = std::atoi(argv[1]);
    const bool cuda_libtorch = argc > 2 && std::strcmp(argv[2], "--cuda-libtorch") == 0;
    if (const auto why = missing(need, cuda_libtorch); !why.empty()) {
        std::cout << "skipped: these tests need NCCL" << (cuda_libtorch ? ", a CUDA libtorch" : "")
                  << " and " << need << " CUDA device(s); " << why << std::endl;
        return k_exit_skipped;
    }
    const int used = cuda_libtorch ? 2 : 1;
    argv[used] = argv[0];
    return Catch::Session().run(argc - used, argv + used);
}
