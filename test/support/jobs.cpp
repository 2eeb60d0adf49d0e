#include "support/jobs.h"

#include <stdlib.h>

#include <catch2/catch.hpp>

#include "cost/measurement.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"

namespace kftrain::test {

manifest::Overrides set_flags(const std::vector<std::string>& sets,
                              std::optional<manifest::JobKind> kind) {
    manifest::Overrides overrides;
    overrides.sets = sets;
    overrides.kind = kind;
    return overrides;
}

util::Result<manifest::JobSpec> try_load_job(const std::string& text,
                                             const manifest::Overrides& overrides) {
    return manifest::load_job_text(text, "job.yaml", overrides);
}

manifest::JobSpec load_job(const std::string& text, const manifest::Overrides& overrides) {
    auto job = try_load_job(text, overrides);
    if (!job) {
        FAIL(job.error());
    }
    return *job;
}

std::string load_error(const std::string& text, const manifest::Overrides& overrides) {
    auto job = try_load_job(text, overrides);
    return job ? std::string("(loaded)") : job.error();
}

util::Result<YAML::Node> try_render_job(const manifest::JobSpec& spec) {
    return manifest::render_job(spec, manifest::default_template(spec.kind));
}

YAML::Node render_yaml(const manifest::JobSpec& spec) {
    auto rendered = try_render_job(spec);
    if (!rendered) {
        FAIL(rendered.error());
    }
    return *rendered;
}

nlohmann::json render_json(const manifest::JobSpec& spec) {
    return manifest::to_json(render_yaml(spec));
}

std::string save_measured_use(const std::string& state_dir, const manifest::JobSpec& spec,
                              double peak_mib, bool cluster, double cores) {
    constexpr double k_mib = 1024.0 * 1024;
    cost::MeasureRequest request;
    request.spec = spec;
    estimate::ProgramProfile profile = cost::new_profile(request);
    profile.measured_at = std::string(k_measured_day) + "T09:12:00Z";
    profile.where.cluster = cluster;
    profile.where.image = cluster ? spec.image : "";
    estimate::SizeMeasurement size;
    size.replicas = 2;
    size.world_size = 2;
    size.basis = "steps";
    size.training_s = 100;
    size.reports = 10;
    size.use = {{"master-0", peak_mib * k_mib, cores, std::nullopt, false, 10},
                {"worker-0", 0.9 * peak_mib * k_mib, cores, std::nullopt, false, 10}};
    profile.sizes = {size};
    const char* before = std::getenv("XDG_STATE_HOME");
    const std::string saved_before = before == nullptr ? "" : before;
    ::setenv("XDG_STATE_HOME", state_dir.c_str(), 1);
    auto saved = cost::save_measured_profile(profile, "");
    if (before == nullptr) {
        ::unsetenv("XDG_STATE_HOME");
    } else {
        ::setenv("XDG_STATE_HOME", saved_before.c_str(), 1);
    }
    if (!saved) {
        FAIL(saved.error());
    }
    return profile.source;
}

}  // namespace kftrain::test
