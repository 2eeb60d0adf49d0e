#include "cli/verbs/top_cmd.h"

#include <chrono>
#include <memory>
#include <thread>

#include "backend/select.h"
#include "cli/verb.h"
#include "cli/view/usage/top_view.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/signals/interrupt.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_top_examples =
    "Examples:\n"
    "  # What each replica uses now: CPU and memory against its request and limit, its node,\n"
    "  # restarts and GPUs (from the kubelets' summaries, or metrics.k8s.io where served)\n"
    "  kftrain top mnist-ddp -n ml-training\n"
    "  # Again every 2 seconds, until Ctrl-C\n"
    "  kftrain top mnist-ddp --watch\n"
    "  # For scripts: cores and bytes, null where unknown\n"
    "  kftrain top mnist-ddp -o json\n"
    "  # Each node's allocatable against what its pods request, GPUs and their product\n"
    "  kftrain top nodes\n"
    "  # A job on this machine: each replica's process tree\n"
    "  kftrain top mnist-ddp --local";

// Wait one --watch interval; return whether Ctrl-C came meanwhile.
bool interrupted_while_waiting() {
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(k_top_interval_s));
    while (std::chrono::steady_clock::now() < until) {
        if (util::interrupt_requested()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return util::interrupt_requested();
}

// Read and print the usage once; return the exit code.
int show_usage(job::Backend& backend, const TopOptions& options, Context& ctx) {
    if (options.nodes) {
        auto nodes = backend.node_usage();
        if (!nodes) {
            return report_error(ctx, nodes.error(), nodes.error_code(k_exit_cluster));
        }
        view::print_node_usage(ctx.out, *nodes, options.format);
        view::print_usage_warnings(ctx.err, nodes->warnings);
        return k_exit_ok;
    }
    auto usage = backend.usage(options.job);
    if (!usage) {
        return report_error(ctx, usage.error(), usage.error_code(k_exit_cluster));
    }
    view::print_job_usage(ctx.out, *usage, options.format);
    view::print_usage_warnings(ctx.err, usage->warnings);
    return k_exit_ok;
}

void add_top_flags(CLI::App& sub, TopOptions& options) {
    sub.add_option("-o,--output", options.output, view::output_flag_help(view::k_table_formats));
    sub.add_flag("-w,--watch", options.watch,
                 "Read and print it again every 2s, until Ctrl-C (exit 130)");
}

}  // namespace

void setup_top(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<TopOptions>();
    auto* sub = app.add_subcommand(
        "top",
        "Show what a job's replicas use (CPU, memory against request and limit, GPUs), or the "
        "nodes' allocation");
    sub->footer(k_top_examples);
    sub->require_subcommand(0, 1);
    sub->add_option("job", options->job, "Name of the job");
    add_top_flags(*sub, *options);
    auto node_options = std::make_shared<TopOptions>();
    node_options->nodes = true;
    auto* nodes = sub->add_subcommand(
        "nodes",
        "Show each node's allocatable against what its pods request: CPU, memory, GPUs and "
        "other extended resources, with the GPU product");
    add_top_flags(*nodes, *node_options);
    run_when_parsed(*nodes, node_options, ctx);
    sub->callback([sub, options, &ctx] {
        if (!sub->get_subcommands().empty()) {
            return;  // top nodes ran
        }
        ctx.exit_code = run_verb(*options, ctx);
    });
}

util::Status TopOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status TopOptions::validate() {
    if (!nodes) {
        if (job.empty()) {
            return util::error(
                "top: name a job (kftrain top JOB) or the nodes (kftrain top nodes)");
        }
        if (auto named = job::check_object_name("job name", job); !named) {
            return named;
        }
    }
    auto parsed = view::parse_output_format(output, view::k_table_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int TopOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    if (watch) {
        util::catch_interrupts();
    }
    for (bool first = true;; first = false) {
        if (!first) {
            ctx.out << "\n";
        }
        const int code = show_usage(*backend, *this, ctx);
        ctx.out.flush();
        if (watch && util::interrupt_requested()) {
            return k_exit_interrupted;
        }
        if (code != k_exit_ok || !watch) {
            return code;
        }
        if (interrupted_while_waiting()) {
            return k_exit_interrupted;
        }
    }
}

}  // namespace kftrain::cli
