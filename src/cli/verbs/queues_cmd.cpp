#include "cli/verbs/queues_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "cli/backend_select.h"
#include "cli/exit_codes.h"
#include "cli/kube/kubectl.h"
#include "cli/kube/kueue/kueue.h"
#include "cli/kube/queries.h"
#include "cli/local/queue/queue_members.h"
#include "cli/verb.h"
#include "cli/view/queue_view.h"

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
        "List the namespace's Kueue LocalQueues (pending, admitted, their ClusterQueue), or "
        "this machine's queues");
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

int QueuesOptions::run_local(Context& ctx) const {
    auto queues = local::local_queues(local::read_queue_members());
    if (queues.empty() && format == view::OutputFormat::Table) {
        ctx.err << "No queues on this machine: a job submitted with --queue NAME makes one.\n";
        return k_exit_ok;
    }
    view::print_local_queues(ctx.out, queues, format);
    return k_exit_ok;
}

int QueuesOptions::run(Context& ctx) const {
    if (use_local_backend(ctx, "")) {
        return run_local(ctx);
    }
    auto kubectl = kube::make_kubectl_runner(ctx.global);
    kube::KubeQueries queries(*kubectl, namespace_);
    auto queues = kube::list_local_queues(queries);
    if (!queues) {
        return report_error(ctx, queues.error(), queues.error_code(k_exit_cluster));
    }
    if (queues->empty() && format == view::OutputFormat::Table) {
        ctx.err << fmt::format("No LocalQueues in {}.\n", queries.namespace_text());
        return k_exit_ok;
    }
    view::print_local_queues(ctx.out, *queues, format);
    return k_exit_ok;
}

}  // namespace kftrain::cli
