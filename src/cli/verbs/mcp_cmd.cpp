#include "cli/verbs/mcp_cmd.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "agent/child_runner.h"
#include "agent/server.h"
#include "cli/verb.h"
#include "estimate/units.h"
#include "manifest/k8s/rules.h"
#include "mcp/session.h"
#include "util/process_info.h"
#include "util/signals/interrupt.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_mcp_examples =
    "Examples:\n"
    "  # Serve the tools to an agent, jobs on the kubeconfig's cluster, a $50 budget per job\n"
    "  kftrain mcp --max-cost 50 --allow-namespace ml-training\n"
    "  # Let an agent look but change nothing\n"
    "  kftrain mcp --read-only\n"
    "  # Try jobs on this machine first, job files only from ./jobs\n"
    "  kftrain mcp --local --root jobs\n\n"
    "Speaks the Model Context Protocol (2025-11-25) on standard input and output, one JSON-RPC\n"
    "message a line, until the input ends. See docs/agents.md for client configuration.";

constexpr const char* k_instructions =
    "kftrain trains PyTorch models across many machines with Kubeflow. Start from a job file: "
    "render_job shows the manifest, estimate_job the time and cost over replica counts, "
    "submit_job (a dry run unless confirm: true) starts the job; get_job_status, "
    "get_job_logs and wait_for_job follow it; delete_job stops it; tune_job and "
    "get_tune_status search hyperparameters.";

}  // namespace

void setup_mcp(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<McpOptions>();
    auto* sub = app.add_subcommand(
        "mcp", "Serve kftrain's tools to AI agents: a Model Context Protocol server on stdio");
    sub->footer(k_mcp_examples);
    sub->add_flag("--read-only", options->read_only,
                  "Offer only the tools that change nothing (no submit, delete or tune)");
    sub->add_option("--max-cost", options->max_cost,
                    "Refuse a submit or search whose estimated cost is more than this many "
                    "dollars, or that cannot be estimated");
    sub->add_option("--allow-namespace", options->allowed_namespaces,
                    "Namespaces the tools may use (repeatable); any other is refused; the "
                    "default namespace becomes the first");
    sub->add_option("--root", options->root,
                    "Directory job_file arguments must lie in (default: the working directory)");
    run_when_parsed(*sub, options, ctx);
}

util::Status McpOptions::complete(const Context& ctx) {
    policy.local = ctx.global.local;
    policy.default_namespace = ctx.global.namespace_;
    for (const auto& [flag, value] : {std::pair{"--context", ctx.global.context},
                                      {"--kubeconfig", ctx.global.kubeconfig},
                                      {"--request-timeout", ctx.global.request_timeout}}) {
        if (!value.empty()) {
            global_args.insert(global_args.end(), {flag, value});
        }
    }
    if (policy.local) {
        global_args.push_back("--local");
    }
    const std::string given = root.value_or(".");
    std::error_code ec;
    std::filesystem::path real = std::filesystem::canonical(given, ec);
    if (ec || !std::filesystem::is_directory(real, ec)) {
        return util::error(fmt::format("--root: not a directory (got {})", given));
    }
    policy.root = real.string();
    return util::ok_status();
}

util::Status McpOptions::validate() {
    policy.read_only = read_only;
    if (max_cost) {
        auto amount = estimate::parse_money(*max_cost);
        if (!amount) {
            return util::error(fmt::format(
                "--max-cost: must be an amount such as 50 or 12.50 (got {})", *max_cost));
        }
        policy.max_cost = *amount;
    }
    for (const std::string& ns : allowed_namespaces) {
        if (!manifest::is_dns1123_label(ns)) {
            return util::error(fmt::format("--allow-namespace: not a namespace name (got {})", ns));
        }
    }
    policy.allowed_namespaces = allowed_namespaces;
    if (!policy.default_namespace.empty()) {
        if (auto allowed = agent::check_job_namespace(policy, policy.default_namespace); !allowed) {
            return util::error(fmt::format("-n {}: {}", policy.default_namespace, allowed.error()));
        }
    }
    return util::ok_status();
}

int McpOptions::run(Context& ctx) const {
    std::signal(SIGPIPE, SIG_IGN);  // a client gone away is seen as a failed write
    util::catch_termination();
    agent::ChildRunner runner(util::self_executable(), global_args, policy.root);
    kftrain::mcp::ServerDescription description{
        KFTRAIN_VERSION, fmt::format("{} {}", k_instructions, agent::describe_policy(policy))};
    agent::Server server(policy, description, runner, STDIN_FILENO, STDOUT_FILENO, ctx.err);
    return server.serve();
}

}  // namespace kftrain::cli
