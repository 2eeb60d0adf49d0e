#include "estimate/profile.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "estimate/profile_reader.h"
#include "util/json_text.h"

namespace kftrain::estimate {
namespace {

using Json = nlohmann::json;

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
    p.model = r.text("model");
    p.dataset = r.text("dataset");
    p.parameters = r.integer("parameters", 1);
    p.gradient_bytes = r.integer("gradient_bytes", 1);
    p.batch_size = static_cast<int>(r.integer("batch_size", 1));
    p.threads = static_cast<int>(r.integer("threads", 0));
    p.world_size = static_cast<int>(r.integer("world_size", 1));
    p.steps = r.integer("steps", 1);
    p.warmup_steps = r.optional_integer("warmup_steps", 0, 0);
    p.compute_s_per_step = r.number("compute_s_per_step", 0, true);
    p.compute_s_mean = r.optional_number("compute_s_mean", 0, 0);
    p.compute_s_stddev = r.optional_number("compute_s_stddev", 0, 0);
    p.forward_s_per_step = r.number("forward_s_per_step", 0, false);
    p.backward_s_per_step = r.number("backward_s_per_step", 0, false);
    p.allreduce_s_per_step = r.number("allreduce_s_per_step", 0, false);
    p.allreduce_bandwidth_bytes_per_s =
        r.nullable("allreduce_bandwidth_bytes_per_s", 0, true, 1e300);
    p.overlap_fraction = r.nullable("overlap_fraction", 0, false, 1);
    p.samples_per_sec = r.number("samples_per_sec", 0, false);
    p.startup_s = r.optional_number("startup_s", 0, 0);
    p.warmup_s = r.optional_number("warmup_s", 0, 0);
    p.eval_s_per_sample = r.optional_number("eval_s_per_sample", 0, 0);
    p.eval_warmup_s = r.optional_number("eval_warmup_s", 0, 0);
    p.checkpoint_bytes = r.optional_integer("checkpoint_bytes", 0, 0);
    p.checkpoint_s = r.optional_number("checkpoint_s", 0, 0);
    // How it was measured: repeats of one world size must agree on these (median_profile).
    p.grad_compression = r.optional_text("grad_compression", "none");
    p.backend = r.optional_text("backend", "none");
    p.bucket_bytes = r.optional_integer("bucket_bytes", 0, 0);
    p.trainer_version = r.text("trainer_version");
    if (r.error()) {
        return util::error(*r.error());
    }
    p.source = source;
    p.measured = true;
    return p;
}

}  // namespace kftrain::estimate
