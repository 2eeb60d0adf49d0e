#include "cli/init_cmd.h"

#include <memory>

#include "cli/exit_codes.h"
#include "manifest/starter.h"
#include "manifest/validate.h"

namespace kftrain::cli {

void setup_init(CLI::App& app, Context& ctx) {
    auto name = std::make_shared<std::string>("my-training-job");
    auto* sub = app.add_subcommand("init", "Print a commented starter job file");
    sub->footer("Examples:\n  # Start a job file\n  kftrain init --name mnist-ddp > job.yaml");
    sub->add_option("--name", *name, "Job name to put in the file");
    sub->add_flag_callback(
        "--reference",
        [&ctx] {
            ctx.out << manifest::job_file_reference();
            throw CLI::Success();
        },
        "Print every job-file key with its type and default as a Markdown table");
    sub->callback([name, &ctx] {
        if (!manifest::is_dns1035_label(*name)) {
            ctx.exit_code = report_error(
                ctx,
                "--name must be a DNS-1035 label: lower-case letters, digits and '-', starting "
                "with a letter (got " +
                    *name + ")",
                k_exit_bad_input);
            return;
        }
        ctx.out << manifest::starter_job_file(*name);
        ctx.exit_code = k_exit_ok;
    });
}

}  // namespace kftrain::cli
