#include "cli/verbs/init_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "cli/verb.h"
#include "job/exit_codes.h"
#include "load/job_input.h"
#include "manifest/starter.h"
#include "manifest/validate.h"

namespace kftrain::cli {

void setup_init(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<InitOptions>();
    auto* sub = app.add_subcommand("init", "Print a commented starter job file");
    sub->footer(
        "Examples:\n  # Start a job file\n  kftrain init --name mnist-ddp > job.yaml\n"
        "  # Start a job file for Kubeflow Trainer v2\n"
        "  kftrain init --name mnist --kind TrainJob > job.yaml");
    sub->add_option("--name", options->name, "Job name to put in the file");
    sub->add_option("--kind", options->kind_text,
                    "What the file renders: PyTorchJob (default), TrainJob, TFJob, XGBoostJob "
                    "or JAXJob");
    sub->add_flag_callback(
        "--reference",
        [&ctx] {
            ctx.out << manifest::job_file_reference();
            throw CLI::Success();
        },
        "Print every job-file key with its type and default as a Markdown table");
    run_when_parsed(*sub, options, ctx);
}

util::Status InitOptions::complete(const Context&) {
    return util::ok_status();
}

util::Status InitOptions::validate() {
    if (kind_text) {
        auto parsed = load::parse_kind_flag(*kind_text);
        if (!parsed) {
            return parsed.error_value();
        }
        kind = *parsed;
    }
    if (!manifest::is_dns1035_label(name)) {
        return util::error(
            "--name must be a DNS-1035 label: lower-case letters, digits and '-', starting "
            "with a letter (got " +
            name + ")");
    }
    return util::ok_status();
}

int InitOptions::run(Context& ctx) const {
    ctx.out << manifest::starter_job_file(name, kind);
    return k_exit_ok;
}

}  // namespace kftrain::cli
