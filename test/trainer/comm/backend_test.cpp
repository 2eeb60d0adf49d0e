#include "trainer/comm/backend.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer::comm;

namespace {

// Hold one --backend case: the flag, where the tensors live, the processes on the host, what
// the probe finds, the answer.
struct BackendCase {
    const char* name;
    std::string flag;
    bool on_cuda;
    int local_procs;
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
        {"auto with CPU tensors is gloo even with GPUs", "auto", false, 1, two, "gloo"},
        {"auto with CUDA tensors is nccl when built in", "auto", true, 1, two, "nccl"},
        {"auto with CUDA tensors is gloo without NCCL", "auto", true, 1, none, "gloo"},
        {"gloo is gloo", "gloo", true, 1, two, "gloo"},
        {"nccl with a device is nccl", "nccl", false, 1, two, "nccl"},
        {"nccl in a build without it", "nccl", false, 1, none,
         "--backend: nccl needs kftrain-trainer built with NCCL (the CUDA toolkit's nccl.h and "
         "libnccl); this build has only gloo (got nccl)"},
        {"nccl without a driver", "nccl", false, 1, no_driver,
         "--backend: nccl needs a visible CUDA device; cudaGetDeviceCount failed with \"CUDA "
         "driver version is insufficient for CUDA runtime version\" (got nccl)"},
        {"nccl with no device", "nccl", false, 1, zero,
         "--backend: nccl needs a visible CUDA device; cudaGetDeviceCount found none (got nccl)"},
        {"an unknown value", "mpi", false, 1, two,
         "--backend: must be auto, gloo or nccl (got mpi)"},
        {"auto with more processes than devices is gloo", "auto", true, 3, two, "gloo"},
        {"auto with a device per process is nccl", "auto", true, 2, two, "nccl"},
        {"nccl with more processes than devices", "nccl", true, 3, two,
         "--backend: nccl needs a CUDA device per process; 3 processes on this host share 2 "
         "device(s): use gloo, or fewer processes per host (got nccl)"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto got = choose_backend(c.flag, c.on_cuda, c.local_procs, [&c] { return c.facts; });
        CHECK((got.ok() ? std::string(backend_name(*got)) : got.error()) == c.want);
    }
}

TEST_CASE("backend gloo and auto on CPU never probe CUDA", "[trainer][backend]") {
    int probes = 0;
    auto probe = [&probes] {
        ++probes;
        return CudaFacts{};
    };
    CHECK(choose_backend("gloo", false, 1, probe).ok());
    CHECK(choose_backend("auto", false, 1, probe).ok());
    CHECK(probes == 0);
}
