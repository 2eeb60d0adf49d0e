#include "cli/verbs/queues_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "backend/select.h"
#include "cli/verb.h"
#include "cli/view/queue_view.h"
#include "job/exit_codes.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_queues_examples =
    "Examples:\n"
    "  # The Kueue LocalQueues a job can wait in (submit --queue NAME, or queue: in the job "
    "file)\n"
    "  kftrain queues -n ml-training\n"
    "  # For scripts\n"
    "  kftrain queues -o json\n"
    "  # The queues of this machine's jobs (submit --queue NAME --local): one job at a time each\n"
    "  kftrain queues --local";

}  // namespace

void setup_queues(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<QueuesOptions>();
    auto* sub = app.add_subcommand(
        "queues",
        "List the namespace's Kueue LocalQueues (pending, admitted, their ClusterQueue and its "
        "quota and usage), or this machine's queues");
    sub->footer(k_queues_examples);
    sub->add_option("-o,--output", options->output, view::output_flag_help(view::k_table_formats));
    run_when_parsed(*sub, options, ctx);
}

util::Status QueuesOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status QueuesOptions::validate() {
    auto parsed = view::parse_output_format(output, view::k_table_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int QueuesOptions::run(Context& ctx) const {
    auto listed = backend::make_backend(ctx, "", namespace_)->queues();
    if (!listed) {
        return report_error(ctx, listed.error(), listed.error_code(k_exit_cluster));
    }
    for (const std::string& warning : listed->warnings) {
        ctx.err << "kftrain: warning: " << warning << "\n";
    }
    if (listed->queues.empty() && format == view::OutputFormat::Table) {
        ctx.err << listed->none_note << "\n";
        return k_exit_ok;
    }
    view::print_local_queues(ctx.out, listed->queues, format);
    return k_exit_ok;
}

}  // namespace kftrain::cli
