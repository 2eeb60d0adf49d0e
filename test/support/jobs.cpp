#include "support/jobs.h"

#include <catch2/catch.hpp>

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

}  // namespace kftrain::test
