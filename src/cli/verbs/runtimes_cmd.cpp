#include "cli/verbs/runtimes_cmd.h"

#include <ctime>
#include <memory>

#include "backend/select.h"
#include "cli/verb.h"
#include "cli/view/runtimes_view.h"
#include "job/exit_codes.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_runtimes_examples =
    "Examples:\n"
    "  # The runtimes a TrainJob can name (job file key runtime, default torch-distributed)\n"
    "  kftrain runtimes -n ml-training\n"
    "  # For scripts\n"
    "  kftrain runtimes -o json";

}  // namespace

void setup_runtimes(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<RuntimesOptions>();
    auto* sub = app.add_subcommand(
        "runtimes", "List the training runtimes a cluster offers TrainJobs (Kubeflow Trainer v2)");
    sub->footer(k_runtimes_examples);
    sub->add_option("-o,--output", options->output, "Output format: table, json or yaml");
    run_when_parsed(*sub, options, ctx);
}

util::Status RuntimesOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    local = ctx.global.local;
    return util::ok_status();
}

util::Status RuntimesOptions::validate() {
    if (local) {
        return util::error(
            "--local: training runtimes are a cluster's (Kubeflow Trainer v2); a local TrainJob "
            "needs none (got --local)");
    }
    auto parsed = view::parse_output_format(output, view::k_table_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int RuntimesOptions::run(Context& ctx) const {
    auto runtimes = backend::make_backend(ctx, "", namespace_)->runtimes();
    if (!runtimes) {
        return report_error(ctx, runtimes.error(), runtimes.error_code(k_exit_cluster));
    }
    if (runtimes->empty() && format == view::OutputFormat::Table) {
        ctx.err << "No training runtimes found.\n";
        return k_exit_ok;
    }
    view::print_runtimes(ctx.out, *runtimes, format, std::time(nullptr));
    return k_exit_ok;
}

}  // namespace kftrain::cli
