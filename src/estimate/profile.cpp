#include "estimate/profile.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace kftrain::estimate {
namespace {

using Json = nlohmann::json;

// Reads keys of one profile object, keeping the first error.
class ProfileReader {
  public:
    ProfileReader(const Json& json, std::string source)
        : m_json(json), m_source(std::move(source)) {}

    // Read a non-empty string.
    std::string text(const char* key) {
        const Json* v = find(key);
        if (v != nullptr && (!v->is_string() || v->get<std::string>().empty())) {
            fail(key, "must be a non-empty string", *v);
            return {};
        }
        return v != nullptr ? v->get<std::string>() : std::string();
    }

    // Read an integer of at least min.
    int64_t integer(const char* key, int64_t min) {
        const Json* v = find(key);
        if (v == nullptr) {
            return min;
        }
        if (!v->is_number_integer() || v->get<int64_t>() < min) {
            fail(key, fmt::format("must be an integer >= {}", min), *v);
            return min;
        }
        return v->get<int64_t>();
    }

    // Read a number in [min, max]; strictly above min when open_min.
    double number(const char* key, double min, bool open_min, double max = 1e300) {
        const Json* v = find(key);
        return v != nullptr ? check_number(key, *v, min, open_min, max) : min;
    }

    // Read a string like text(), or fallback when the key is absent (older profiles).
    std::string optional_text(const char* key, const std::string& fallback) {
        return m_json.contains(key) ? text(key) : fallback;
    }

    // Read an integer of at least min, or fallback when the key is absent (older profiles).
    int64_t optional_integer(const char* key, int64_t min, int64_t fallback) {
        return m_json.contains(key) ? integer(key, min) : fallback;
    }

    // Read a number like number(), or fallback when the key is absent (older profiles).
    double optional_number(const char* key, double min, double fallback) {
        return m_json.contains(key) ? number(key, min, false) : fallback;
    }

    // Read a number like number(), or null.
    std::optional<double> nullable(const char* key, double min, bool open_min, double max) {
        const Json* v = find(key);
        if (v == nullptr || v->is_null()) {
            return std::nullopt;
        }
        return check_number(key, *v, min, open_min, max);
    }

    // Return the first error, if any.
    const std::optional<std::string>& error() const { return m_error; }

  private:
    const Json* find(const char* key) {
        const auto it = m_json.find(key);
        if (it == m_json.end()) {
            set_error(fmt::format("{}: {}: missing", m_source, key));
            return nullptr;
        }
        return &*it;
    }

    double check_number(const char* key, const Json& v, double min, bool open_min, double max) {
        const bool ok = v.is_number() &&
                        (open_min ? v.get<double>() > min : v.get<double>() >= min) &&
                        v.get<double>() <= max;
        if (!ok) {
            const std::string range = max < 1e300
                                          ? fmt::format("between {} and {}", min, max)
                                          : fmt::format("{} {}", open_min ? ">" : ">=", min);
            fail(key, "must be a number " + range, v);
            return min;
        }
        return v.get<double>();
    }

    void fail(const char* key, const std::string& what, const Json& got) {
        set_error(fmt::format("{}: {}: {} (got {})", m_source, key, what, got.dump()));
    }

    void set_error(std::string message) {
        if (!m_error) {
            m_error = std::move(message);
        }
    }

    const Json& m_json;
    std::string m_source;
    std::optional<std::string> m_error;
};

}  // namespace

util::Result<Profile> parse_profile(const std::string& text, const std::string& source) {
    const Json json = Json::parse(text, nullptr, false);
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
