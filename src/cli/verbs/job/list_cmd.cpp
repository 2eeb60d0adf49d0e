#include "cli/verbs/job/list_cmd.h"

#include <fmt/format.h>

#include <ctime>
#include <memory>

#include "backend/select.h"
#include "cli/verb.h"
#include "cli/view/queue_view.h"
#include "cli/view/status_view.h"
#include "cost/estimate_inputs.h"
#include "job/exit_codes.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_list_examples =
    "Examples:\n"
    "  # The jobs of one namespace: PyTorchJobs and TrainJobs, with a KIND column\n"
    "  kftrain list -n ml-training\n"
    "  # Every namespace, with duration, cost so far and progress\n"
    "  kftrain list -A -o wide\n"
    "  # The jobs waiting in the Kueue LocalQueue team-a, next in line first\n"
    "  kftrain list --queue team-a -n ml-training\n"
    "  # The same for this machine's queue team-a (submit --queue team-a --local)\n"
    "  kftrain list --queue team-a --local";

}  // namespace

void setup_list(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<ListOptions>();
    auto* sub = app.add_subcommand("list", "List jobs and their states");
    sub->alias("ls");
    sub->footer(k_list_examples);
    sub->add_flag("-A,--all-namespaces", options->all_namespaces, "Jobs of every namespace");
    sub->add_option("-o,--output", options->output, "Output format: table, wide, json or yaml");
    sub->add_option("--queue", options->queue,
                    "The jobs of this Kueue LocalQueue in queue order, with their position and "
                    "wait so far")
        ->type_name("NAME");
    sub->add_option("--prices", options->prices,
                    "Price catalog for the cost (default: KFTRAIN_PRICES, else built-in)");
    run_when_parsed(*sub, options, ctx);
}

util::Status ListOptions::complete(const Context& ctx) {
    auto loaded = cost::load_pricing(prices, "");
    if (!loaded) {
        return loaded.error_value();
    }
    pricing = std::move(*loaded);
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

// Return the jobs of the queue: Kueue's Workloads on a cluster, or this machine's local queue.
util::Result<std::vector<job::QueueEntry>> ListOptions::queue_entries(Context& ctx) const {
    return backend::make_backend(ctx, "", namespace_)->queue_entries(queue);
}

int ListOptions::run_queue(Context& ctx) const {
    auto entries = queue_entries(ctx);
    if (!entries) {
        return report_error(ctx, entries.error(), entries.error_code(k_exit_cluster));
    }
    bool table = format == view::OutputFormat::Table || format == view::OutputFormat::Wide;
    if (entries->empty() && table) {
        ctx.err << fmt::format("No jobs in queue {}.\n", queue);
        return k_exit_ok;
    }
    view::print_queue_entries(ctx.out, *entries, format, std::time(nullptr));
    return k_exit_ok;
}

util::Status ListOptions::validate() {
    if (!queue.empty() && all_namespaces) {
        return util::error(fmt::format(
            "--queue: a LocalQueue belongs to one namespace; drop -A (got --queue {} with -A)",
            queue));
    }
    auto parsed = view::parse_output_format(output, view::k_job_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int ListOptions::run(Context& ctx) const {
    if (!queue.empty()) {
        return run_queue(ctx);
    }
    auto backend = backend::make_backend(ctx, "", namespace_);
    auto jobs = backend->list(all_namespaces);
    if (!jobs) {
        return report_error(ctx, jobs.error(), jobs.error_code(k_exit_cluster));
    }
    bool table = format == view::OutputFormat::Table || format == view::OutputFormat::Wide;
    if (jobs->empty() && table) {
        ctx.err << "No jobs found.\n";
        return k_exit_ok;
    }
    view::print_list(ctx.out, *jobs, format, all_namespaces, std::time(nullptr), &pricing);
    return k_exit_ok;
}

}  // namespace kftrain::cli
