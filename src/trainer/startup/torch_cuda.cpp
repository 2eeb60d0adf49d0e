// probe_torch_cuda(), declared in device.h: the one startup question that needs libtorch,
// answered in a translation unit of its own so that callers need no torch header.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/cuda.h>

#include "trainer/startup/device.h"

namespace kftrain::trainer {

TorchCuda probe_torch_cuda() {
    TorchCuda facts;
    facts.devices = static_cast<int>(torch::cuda::device_count());
    // libc10_cuda registers CUDA's device guard when it loads: only CUDA builds have it.
    facts.built = facts.devices > 0 || c10::impl::hasDeviceGuardImpl(c10::DeviceType::CUDA);
    return facts;
}

}  // namespace kftrain::trainer
