#include "trainer/startup/device.h"

#include <fmt/format.h>

namespace kftrain::trainer {

util::Result<std::string> choose_device(const std::string& flag, int local_rank,
                                        const TorchCuda& cuda) {
    if (flag != "auto" && flag != "cpu" && flag != "cuda") {
        return util::error(fmt::format("--device: must be one of auto, cpu, cuda (got {})", flag));
    }
    const bool usable = cuda.built && cuda.devices > 0;
    if (flag == "cpu" || (flag == "auto" && !usable)) {
        return std::string("cpu");
    }
    if (!cuda.built) {
        return util::error(fmt::format(
            "--device: cuda needs a CUDA build of libtorch; this kftrain-trainer's libtorch is a "
            "CPU build (got {})",
            flag));
    }
    if (cuda.devices < 1) {
        return util::error(
            fmt::format("--device: cuda needs a visible CUDA device; libtorch sees none (check "
                        "CUDA_VISIBLE_DEVICES and the driver) (got {})",
                        flag));
    }
    return fmt::format("cuda:{}", local_rank % cuda.devices);
}

bool choose_channels_last(const std::string& flag, bool convolutional, bool on_cuda) {
    return flag == "channels-last" || (flag == "auto" && convolutional && !on_cuda);
}

}  // namespace kftrain::trainer
