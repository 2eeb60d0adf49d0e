#include <catch2/catch.hpp>

#include "trainer/backend.h"

using namespace kftrain::trainer;

namespace {

// Hold one --backend case: the flag, where the tensors live, what the probe finds, the answer.
struct BackendCase {
    const char* name;
    std::string flag;
    bool on_cuda;
    CudaFacts facts;
    std::string want;  // "gloo", "nccl" or the error message
};

}  // namespace

TEST_CASE("the backend flag resolves to gloo or nccl or to an error naming the flag and why",
          "[trainer][backend]") {
    const CudaFacts none{};
    const CudaFacts no_driver{true, 0,
                              "CUDA driver version is insufficient for CUDA runtime version"};
    const CudaFacts zero{true, 0, ""};
    const CudaFacts two{true, 2, ""};
    const std::vector<BackendCase> cases{
        {"auto with CPU tensors is gloo even with GPUs", "auto", false, two, "gloo"},
        {"auto with CUDA tensors is nccl when built in", "auto", true, two, "nccl"},
        {"auto with CUDA tensors is gloo without NCCL", "auto", true, none, "gloo"},
        {"gloo is gloo", "gloo", true, two, "gloo"},
        {"nccl with a device is nccl", "nccl", false, two, "nccl"},
        {"nccl in a build without it", "nccl", false, none,
         "--backend: nccl needs kftrain-trainer built with NCCL (the CUDA toolkit's nccl.h and "
         "libnccl); this build has only gloo (got nccl)"},
        {"nccl without a driver", "nccl", false, no_driver,
         "--backend: nccl needs a visible CUDA device; cudaGetDeviceCount failed with \"CUDA "
         "driver version is insufficient for CUDA runtime version\" (got nccl)"},
        {"nccl with no device", "nccl", false, zero,
         "--backend: nccl needs a visible CUDA device; cudaGetDeviceCount found none (got nccl)"},
        {"an unknown value", "mpi", false, two, "--backend: must be auto, gloo or nccl (got mpi)"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto got = choose_backend(c.flag, c.on_cuda, [&c] { return c.facts; });
        CHECK((got.ok() ? std::string(backend_name(*got)) : got.error()) == c.want);
    }
}

TEST_CASE("backend gloo and auto on CPU never probe CUDA", "[trainer][backend]") {
    int probes = 0;
    auto probe = [&probes] {
        ++probes;
        return CudaFacts{};
    };
    CHECK(choose_backend("gloo", false, probe).ok());
    CHECK(choose_backend("auto", false, probe).ok());
    CHECK(probes == 0);
}
