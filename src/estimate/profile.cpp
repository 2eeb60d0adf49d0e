#include "estimate/profile.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/json_fields.h"
#include "util/json_text.h"

namespace kftrain::estimate {
namespace {

using Json = nlohmann::json;
namespace key = wire::profile_key;

// Read how it was measured (repeats of one world size must agree: median_profile) and the
// blocks of steps behind its typical figures (the range), "none", 0 or none in older
// profiles; a wrong one throws util::JsonFieldError naming it.
void read_how_measured(const util::JsonFields& r, Profile& p) {
    const auto text_or_none = [&](const char* k) {
        return r.has(k) ? r.text(k) : std::string("none");
    };
    p.grad_compression = text_or_none(key::k_grad_compression);
    p.backend = text_or_none(key::k_backend);
    p.bucket_bytes = r.has(key::k_bucket_bytes) ? r.integer(key::k_bucket_bytes, 0) : 0;
    p.compute_s_blocks = r.number_list(key::k_compute_s_blocks, 0);
    p.step_s_blocks = r.number_list(key::k_step_s_blocks, 0);
}

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
    const util::JsonFields r(json, "");
    // Fields older profiles lack read as 0 or "none" (each at least 0 where given).
    const auto number_or_zero = [&](const char* k) { return r.has(k) ? r.number(k, 0) : 0.0; };
    const auto integer_or_zero = [&](const char* k) {
        return r.has(k) ? r.integer(k, 0) : int64_t{0};
    };
    Profile p;
    try {
        p.model = r.text(key::k_model);
        p.dataset = r.text(key::k_dataset);
        p.parameters = r.integer(key::k_parameters, 1);
        p.gradient_bytes = r.integer(key::k_gradient_bytes, 1);
        p.batch_size = static_cast<int>(r.integer(key::k_batch_size, 1));
        p.threads = static_cast<int>(r.integer(key::k_threads, 0));
        p.world_size = static_cast<int>(r.integer(key::k_world_size, 1));
        p.steps = r.integer(key::k_steps, 1);
        p.warmup_steps = integer_or_zero(key::k_warmup_steps);
        p.compute_s_per_step = r.number(key::k_compute_s_per_step, 0, true);
        p.compute_s_mean = number_or_zero(key::k_compute_s_mean);
        p.compute_s_stddev = number_or_zero(key::k_compute_s_stddev);
        p.forward_s_per_step = r.number(key::k_forward_s_per_step, 0);
        p.backward_s_per_step = r.number(key::k_backward_s_per_step, 0);
        p.allreduce_s_per_step = r.number(key::k_allreduce_s_per_step, 0);
        p.allreduce_bandwidth_bytes_per_s =
            r.number_or_null(key::k_allreduce_bandwidth_bytes_per_s, 0, true);
        p.overlap_fraction = r.number_or_null(key::k_overlap_fraction, 0, false, 1);
        p.samples_per_sec = r.number(key::k_samples_per_sec, 0);
        p.startup_s = number_or_zero(key::k_startup_s);
        p.warmup_s = number_or_zero(key::k_warmup_s);
        p.eval_s_per_sample = number_or_zero(key::k_eval_s_per_sample);
        p.eval_warmup_s = number_or_zero(key::k_eval_warmup_s);
        p.checkpoint_bytes = integer_or_zero(key::k_checkpoint_bytes);
        p.checkpoint_s = number_or_zero(key::k_checkpoint_s);
        read_how_measured(r, p);
        p.trainer_version = r.text(key::k_trainer_version);
    } catch (const util::JsonFieldError& e) {
        return util::error(fmt::format("{}: {}", source, e.message));
    }
    p.source = source;
    p.measured = true;
    return p;
}

}  // namespace kftrain::estimate
