#include "estimate/builtin_profile.h"

#include <fmt/format.h>

#include "estimate/network_shape.h"

namespace kftrain::estimate {

util::Result<Profile> builtin_profile(const std::string& model, const std::string& dataset,
                                      int batch_size, const DeviceSpeed& device) {
    const auto input = dataset_shape(dataset, model);
    if (!input) {
        return util::error(fmt::format(
            "trainer.dataset: no built-in profile for this data set (got {})", dataset));
    }
    const auto shape = network_shape(model, *input);
    if (!shape) {
        return util::error(
            fmt::format("trainer.model: no built-in profile for this model; measure one with "
                        "`kftrain-trainer --benchmark 20 --profile-out profile.json` (got {})",
                        model));
    }
    const double forward_s =
        static_cast<double>(shape->forward_flops_per_sample) * batch_size / device.flops;
    Profile p;
    p.model = model;
    p.dataset = dataset;
    p.parameters = shape->parameters;
    p.gradient_bytes = shape->parameters * 4;
    p.batch_size = batch_size;
    p.forward_s_per_step = forward_s;
    p.backward_s_per_step = 2 * forward_s;
    p.compute_s_per_step = 3 * forward_s;
    p.samples_per_sec = batch_size / p.compute_s_per_step;
    p.source = "built-in";
    p.measured = false;
    return p;
}

}  // namespace kftrain::estimate
