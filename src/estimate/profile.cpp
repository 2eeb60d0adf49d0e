#include "estimate/profile.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "estimate/profile_reader.h"
#include "util/json_text.h"

namespace kftrain::estimate {
namespace {

using Json = nlohmann::json;
namespace key = wire::profile_key;

}  // namespace

util::Result<Profile> parse_profile(const std::string& text, const std::string& source) {
    const Json json = util::parse_untrusted_json(text);
    if (json.is_discarded()) {
        return util::error(
            fmt::format("{}: not valid JSON (a profile written by "
                        "`kftrain-trainer --benchmark STEPS --profile-out FILE`)",
                        source));
    }
    if (!json.is_object()) {
        return util::error(
            fmt::format("{}: must be a JSON object (got {})", source, json.type_name()));
    }
    ProfileReader r(json, source);
    Profile p;
    p.model = r.text(key::k_model);
    p.dataset = r.text(key::k_dataset);
    p.parameters = r.integer(key::k_parameters, 1);
    p.gradient_bytes = r.integer(key::k_gradient_bytes, 1);
    p.batch_size = static_cast<int>(r.integer(key::k_batch_size, 1));
    p.threads = static_cast<int>(r.integer(key::k_threads, 0));
    p.world_size = static_cast<int>(r.integer(key::k_world_size, 1));
    p.steps = r.integer(key::k_steps, 1);
    p.warmup_steps = r.optional_integer(key::k_warmup_steps, 0, 0);
    p.compute_s_per_step = r.number(key::k_compute_s_per_step, 0, true);
    p.compute_s_mean = r.optional_number(key::k_compute_s_mean, 0, 0);
    p.compute_s_stddev = r.optional_number(key::k_compute_s_stddev, 0, 0);
    p.forward_s_per_step = r.number(key::k_forward_s_per_step, 0, false);
    p.backward_s_per_step = r.number(key::k_backward_s_per_step, 0, false);
    p.allreduce_s_per_step = r.number(key::k_allreduce_s_per_step, 0, false);
    p.allreduce_bandwidth_bytes_per_s =
        r.nullable(key::k_allreduce_bandwidth_bytes_per_s, 0, true, 1e300);
    p.overlap_fraction = r.nullable(key::k_overlap_fraction, 0, false, 1);
    p.samples_per_sec = r.number(key::k_samples_per_sec, 0, false);
    p.startup_s = r.optional_number(key::k_startup_s, 0, 0);
    p.warmup_s = r.optional_number(key::k_warmup_s, 0, 0);
    p.eval_s_per_sample = r.optional_number(key::k_eval_s_per_sample, 0, 0);
    p.eval_warmup_s = r.optional_number(key::k_eval_warmup_s, 0, 0);
    p.checkpoint_bytes = r.optional_integer(key::k_checkpoint_bytes, 0, 0);
    p.checkpoint_s = r.optional_number(key::k_checkpoint_s, 0, 0);
    // How it was measured: repeats of one world size must agree on these (median_profile).
    p.grad_compression = r.optional_text(key::k_grad_compression, "none");
    p.backend = r.optional_text(key::k_backend, "none");
    p.bucket_bytes = r.optional_integer(key::k_bucket_bytes, 0, 0);
    p.trainer_version = r.text(key::k_trainer_version);
    if (r.error()) {
        return util::error(*r.error());
    }
    p.source = source;
    p.measured = true;
    return p;
}

}  // namespace kftrain::estimate
