#include "cli/verbs/doctor_cmd.h"

#include <filesystem>
#include <memory>

#include "backend/select.h"
#include "cli/job_flags.h"
#include "cli/verb.h"
#include "cli/view/doctor_view.h"
#include "job/exit_codes.h"
#include "load/collect.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_doctor_examples =
    "Examples:\n"
    "  # Can jobs run on this cluster, in this namespace? Kinds, runtimes, Katib, Kueue,\n"
    "  # nodes and the permissions kftrain needs\n"
    "  kftrain doctor -n ml-training\n"
    "  # And this job: its kind, runtime, queue, claims, secrets, and a node it fits on\n"
    "  kftrain doctor -f job.yaml\n"
    "  # This machine, for --local jobs\n"
    "  kftrain doctor --local -f job.yaml\n"
    "  # For CI: exit 1 when a needed check fails, the report as JSON\n"
    "  kftrain doctor -f job.yaml -o json";

}  // namespace

void setup_doctor(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<DoctorOptions>();
    auto* sub = app.add_subcommand(
        "doctor", "Check that jobs (and a job file's job) can run here, before the first submit");
    sub->footer(k_doctor_examples);
    add_job_file_flags(*sub, options->job);
    sub->add_option("-o,--output", options->output, "Output format: table, json or yaml");
    run_when_parsed(*sub, options, ctx);
}

util::Status DoctorOptions::complete(const Context& ctx) {
    request.namespace_ = ctx.global.namespace_;
    if (job.file.empty() && !job.job_yaml) {
        return util::ok_status();
    }
    auto loaded = load::load_job(job, ctx.global);
    if (!loaded) {
        return loaded.error_value();
    }
    request.folder = load::code_folder(*loaded, job.file == "-" || job.job_yaml.has_value());
    if (loaded->code.path.empty()) {
        const std::string folder = std::filesystem::path(job.file).parent_path().string();
        request.folder = job.file == "-" ? "" : folder;
    }
    job_backend = loaded->backend;
    request.job = std::move(*loaded);
    return util::ok_status();
}

util::Status DoctorOptions::validate() {
    auto parsed = view::parse_output_format(output, view::k_table_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int DoctorOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, job_backend, request.namespace_);
    const doctor::Report report = backend->doctor(request);
    view::print_doctor(ctx.out, report, format);
    return doctor::passed(report) ? k_exit_ok : k_exit_job_failed;
}

}  // namespace kftrain::cli
