// Main of the GPU tests. The first argument is how many CUDA devices the selected tests need;
// with fewer, or in a build without NCCL, exit 77, which ctest reports as skipped
// (SKIP_RETURN_CODE): Catch2 2.x has no skip of its own.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

#include "trainer/nccl_group.h"

namespace {

constexpr int k_exit_skipped = 77;

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: trainer_nccl_tests DEVICES [catch2 arguments]\n";
        return 2;
    }
    const int need = std::atoi(argv[1]);
    const auto facts = kftrain::trainer::probe_cuda();
    if (!facts.nccl_built || facts.devices < need) {
        std::cout << "skipped: these tests need NCCL and " << need << " CUDA device(s); "
                  << (!facts.nccl_built     ? "this build has no NCCL"
                      : facts.error.empty() ? std::to_string(facts.devices) + " visible"
                                            : "cudaGetDeviceCount: " + facts.error)
                  << std::endl;
        return k_exit_skipped;
    }
    argv[1] = argv[0];
    return Catch::Session().run(argc - 1, argv + 1);
}
