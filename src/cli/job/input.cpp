#include "cli/job/input.h"

#include <fmt/format.h>

#include "manifest/load.h"
#include "manifest/render.h"
#include "manifest/yaml_emit.h"

namespace kftrain::cli::job {

void add_job_file_flags(CLI::App& sub, JobInput& input) {
    sub.add_option("-f,--file", input.file, "Job file (YAML); see 'kftrain init'")->required();
    sub.add_option("--set", input.sets,
                   "Override a job-file key, typed as the key: --set replicas=8 "
                   "--set trainer.epochs=5 (repeatable; overrides the job file)");
}

void add_job_input_flags(CLI::App& sub, JobInput& input) {
    add_job_file_flags(sub, input);
    sub.add_option("--kind", input.kind,
                   "What to render: PyTorchJob (Training Operator v1) or TrainJob (Kubeflow "
                   "Trainer v2); overrides the job file's kind");
    sub.add_option("--template", input.template_file,
                   "Template to render into, of the job's kind (default: the built-in "
                   "templates/pytorchjob.yaml or templates/trainjob.yaml)");
}

util::Result<manifest::JobSpec> load_job(const JobInput& input, const GlobalOptions& global) {
    manifest::Overrides overrides;
    overrides.sets = input.sets;
    if (!global.namespace_.empty()) {
        overrides.namespace_ = global.namespace_;
    }
    if (!input.kind.empty()) {
        overrides.kind = manifest::parse_kind(input.kind);
        if (!overrides.kind) {
            return util::error(fmt::format("--kind: must be {} (got {})", manifest::k_kind_choices,
                                           input.kind));
        }
    }
    return manifest::load_job_file(input.file, overrides);
}

util::Result<manifest::Template> job_template(const JobInput& input, manifest::JobKind kind) {
    if (input.template_file.empty()) {
        return manifest::default_template(kind);
    }
    auto text = manifest::read_file(input.template_file);
    if (!text) {
        return util::Error{"--template: " + text.error()};
    }
    return manifest::Template{*text, input.template_file};
}

util::Result<RenderedJob> load_and_render(const JobInput& input, const GlobalOptions& global) {
    auto spec = load_job(input, global);
    if (!spec) {
        return util::Error{spec.error()};
    }
    auto tmpl = job_template(input, spec->kind);
    if (!tmpl) {
        return tmpl.error_value();
    }
    auto rendered = manifest::render_job(*spec, *tmpl);
    if (!rendered) {
        return util::Error{rendered.error()};
    }
    return RenderedJob{std::move(spec.value()), *rendered};
}

}  // namespace kftrain::cli::job
