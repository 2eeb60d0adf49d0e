#include "trainer/comm/backend.h"

#include <fmt/format.h>

namespace kftrain::trainer::comm {

const char* backend_name(Backend backend) {
    switch (backend) {
        case Backend::nccl:
            return "nccl";
        case Backend::shm:
            return "shm";
        case Backend::gloo:
            break;
    }
    return "gloo";
}

util::Result<Backend> choose_backend(const std::string& flag, bool tensors_on_cuda, int local_procs,
                                     const std::function<CudaFacts()>& probe) {
    if (flag != "auto" && flag != "gloo" && flag != "nccl") {
        return util::error(fmt::format("--backend: must be auto, gloo or nccl (got {})", flag));
    }
    if (flag == "gloo" || (flag == "auto" && !tensors_on_cuda)) {
        return Backend::gloo;
    }
    const CudaFacts facts = probe();
    if (flag == "auto") {
        return facts.nccl_built && local_procs <= facts.devices ? Backend::nccl : Backend::gloo;
    }
    if (!facts.nccl_built) {
        return util::error(fmt::format(
            "--backend: nccl needs kftrain-trainer built with NCCL (the CUDA toolkit's nccl.h "
            "and libnccl); this build has only gloo (got {})",
            flag));
    }
    if (!facts.error.empty()) {
        return util::error(fmt::format(
            "--backend: nccl needs a visible CUDA device; cudaGetDeviceCount failed with \"{}\" "
            "(got {})",
            facts.error, flag));
    }
    if (facts.devices < 1) {
        return util::error(fmt::format(
            "--backend: nccl needs a visible CUDA device; cudaGetDeviceCount found none (got {})",
            flag));
    }
    if (local_procs > facts.devices) {
        return util::error(fmt::format(
            "--backend: nccl needs a CUDA device per process; {} processes on this host share "
            "{} device(s): use gloo, or fewer processes per host (got {})",
            local_procs, facts.devices, flag));
    }
    return Backend::nccl;
}

}  // namespace kftrain::trainer::comm
