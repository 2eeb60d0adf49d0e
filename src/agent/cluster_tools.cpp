#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "agent/tools.h"
#include "mcp/arguments.h"
#include "mcp/tool_catalog.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::agent {
namespace {

using json = nlohmann::json;
using kftrain::mcp::ArgumentReader;
namespace tool = kftrain::mcp::tool;

constexpr int k_default_tail = 100;
constexpr int k_default_max_bytes = 65536;

// The name and namespace of the job or search a call names, namespace decided by the policy.
struct Named {
    std::string name;
    std::string ns;

    // The verb's arguments: the name, then -n when a namespace is set.
    std::vector<std::string> args(std::vector<std::string> verb) const {
        verb.push_back(name);
        if (!ns.empty()) {
            verb.insert(verb.end(), {"-n", ns});
        }
        return verb;
    }
};

util::Result<Named> read_named(ArgumentReader& reader, const CallContext& ctx) {
    Named named;
    named.name = reader.text("name");
    if (named.name.empty()) {
        reader.refuse("argument name is required");
    }
    auto ns = call_namespace(ctx.policy, reader.text("namespace"));
    if (!ns) {
        return ns.error_value();
    }
    named.ns = *ns;
    return named;
}

ChildRequest quick(std::vector<std::string> args) {
    ChildRequest request;
    request.args = std::move(args);
    request.timeout = k_verb_timeout;
    return request;
}

// Run a verb whose only arguments are a name and a namespace, printing JSON.
util::Result<json> named_json_verb(const json& arguments, const CallContext& ctx,
                                   std::vector<std::string> verb) {
    ArgumentReader reader(arguments);
    auto named = read_named(reader, ctx);
    if (auto done = reader.finish({"name", "namespace"}); !done) {
        return done.error_value();
    }
    if (!named) {
        return named.error_value();
    }
    return run_json_verb(quick(named->args(std::move(verb))), ctx);
}

// Cut text to at most max_bytes at a line's end (or mid-line when one line is longer).
bool cut_text(std::string& text, size_t max_bytes) {
    if (text.size() <= max_bytes) {
        return false;
    }
    size_t end = text.rfind('\n', max_bytes - 1);
    text.resize(end == std::string::npos ? max_bytes : end + 1);
    return true;
}

}  // namespace

util::Result<ChildOutcome> run_verb_ok(const ChildRequest& request, const CallContext& ctx) {
    auto outcome = ctx.runner.run(request, ctx.cancelled);
    if (!outcome) {
        return outcome.error_value();
    }
    if (outcome->cancelled) {
        return util::error("cancelled");
    }
    if (outcome->timed_out) {
        return util::error(fmt::format("kftrain {} did not answer in time", request.args.at(0)));
    }
    if (outcome->out_overflow) {
        if (request.partial_output_ok) {
            return outcome;
        }
        return util::error(
            fmt::format("kftrain {} printed more than the server takes", request.args.at(0)));
    }
    if (outcome->code != 0) {
        return util::error(outcome->message(), outcome->code);
    }
    return outcome;
}

util::Result<json> run_json_verb(const ChildRequest& request, const CallContext& ctx) {
    auto outcome = run_verb_ok(request, ctx);
    if (!outcome) {
        return outcome.error_value();
    }
    json doc = util::parse_untrusted_json(outcome->out);
    if (doc.is_discarded() || !doc.is_object()) {
        return util::error(fmt::format("kftrain {} printed no JSON object", request.args.at(0)));
    }
    return doc;
}

util::Result<json> list_jobs_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    auto ns = call_namespace(ctx.policy, reader.text("namespace"));
    if (auto done = reader.finish({"namespace"}); !done) {
        return done.error_value();
    }
    if (!ns) {
        return ns.error_value();
    }
    std::vector<std::string> args = {"list", "-o", "json"};
    if (!ns->empty()) {
        args.insert(args.end(), {"-n", *ns});
    }
    return run_json_verb(quick(args), ctx);
}

util::Result<json> get_job_status_tool(const json& arguments, const CallContext& ctx) {
    return named_json_verb(arguments, ctx, {"status", "-o", "json"});
}

util::Result<json> get_job_logs_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    auto named = read_named(reader, ctx);
    std::string replica = reader.text("replica");
    long long tail = reader.integer("tail_lines", 1, 2000).value_or(k_default_tail);
    long long max_bytes = reader.integer("max_bytes", 1, 1 << 20).value_or(k_default_max_bytes);
    if (auto done = reader.finish({"name", "namespace", "replica", "tail_lines", "max_bytes"});
        !done) {
        return done.error_value();
    }
    if (!named) {
        return named.error_value();
    }
    std::vector<std::string> args = named->args({"logs", "--tail", std::to_string(tail)});
    if (!replica.empty()) {
        args.insert(args.end(), {"--replica", replica});
    }
    ChildRequest request = quick(args);
    request.partial_output_ok = true;  // a 200 MB line: its start, said to be cut
    auto outcome = run_verb_ok(request, ctx);
    if (!outcome) {
        return outcome.error_value();
    }
    std::string text = std::move(outcome->out);
    const bool truncated = cut_text(text, static_cast<size_t>(max_bytes)) || outcome->out_overflow;
    long long lines = std::count(text.begin(), text.end(), '\n');
    return json{{"name", named->name}, {"text", text}, {"lines", lines}, {"truncated", truncated}};
}

util::Result<json> wait_for_job_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    auto named = read_named(reader, ctx);
    std::string condition = reader.text("for", "succeeded");
    long long timeout = reader.integer("timeout_seconds", 1, 3600).value_or(3600);
    if (condition != "succeeded" && condition != "running" && condition != "admitted") {
        reader.refuse(
            fmt::format("argument for must be succeeded, running or admitted (got {})", condition));
    }
    if (auto done = reader.finish({"name", "namespace", "for", "timeout_seconds"}); !done) {
        return done.error_value();
    }
    if (!named) {
        return named.error_value();
    }
    ChildRequest wait;
    wait.args = named->args(
        {"wait", "--for", condition, "--timeout", fmt::format("{}s", timeout), "--interval", "1s"});
    wait.timeout = std::chrono::seconds(timeout) + k_verb_timeout;
    wait.on_out = [&ctx](const std::string& line) { ctx.progress(line); };
    auto outcome = ctx.runner.run(wait, ctx.cancelled);
    if (!outcome) {
        return outcome.error_value();
    }
    if (outcome->cancelled) {
        return util::error("cancelled");
    }
    std::string verdict = outcome->code == 0   ? "met"
                          : outcome->code == 1 ? "failed"
                          : outcome->code == 5 ? "timed out"
                                               : "";
    if (verdict.empty()) {
        return util::error(outcome->message(), outcome->code);
    }
    auto status = run_json_verb(quick(named->args({"status", "-o", "json"})), ctx);
    if (!status) {
        return status.error_value();
    }
    return json{
        {"name", named->name}, {"for", condition}, {"outcome", verdict}, {"status", *status}};
}

util::Result<json> delete_job_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    auto named = read_named(reader, ctx);
    bool confirm = reader.flag("confirm", false);
    if (auto done = reader.finish({"name", "namespace", "confirm"}); !done) {
        return done.error_value();
    }
    if (!named) {
        return named.error_value();
    }
    if (!confirm) {
        return util::error(fmt::format(
            "delete_job {}: nothing deleted; call again with confirm: true to delete the job "
            "and stop its replicas",
            named->name));
    }
    auto outcome = run_verb_ok(quick(named->args({"delete"})), ctx);
    if (!outcome) {
        return outcome.error_value();
    }
    return json{{"name", named->name}, {"deleted", true}, {"message", util::trim(outcome->out)}};
}

util::Result<json> get_tune_status_tool(const json& arguments, const CallContext& ctx) {
    return named_json_verb(arguments, ctx, {"tune", "status", "-o", "json"});
}

util::Result<json> diagnose_job_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    auto named = read_named(reader, ctx);
    auto stuck_after = reader.integer("stuck_after_seconds", 1, 86400);
    if (auto done = reader.finish({"name", "namespace", "stuck_after_seconds"}); !done) {
        return done.error_value();
    }
    if (!named) {
        return named.error_value();
    }
    std::vector<std::string> args = named->args({"diagnose", "-o", "json"});
    if (stuck_after) {
        args.insert(args.end(), {"--stuck-after", fmt::format("{}s", *stuck_after)});
    }
    return run_json_verb(quick(args), ctx);
}

util::Result<json> top_job_tool(const json& arguments, const CallContext& ctx) {
    return named_json_verb(arguments, ctx, {"top", "-o", "json"});
}

util::Result<json> run_tool(const std::string& name, const json& arguments,
                            const CallContext& ctx) {
    using Tool = util::Result<json> (*)(const json&, const CallContext&);
    static const std::vector<std::pair<const char*, Tool>> k_tools = {
        {tool::k_render_job, render_job_tool},
        {tool::k_estimate_job, estimate_job_tool},
        {tool::k_submit_job, submit_job_tool},
        {tool::k_list_jobs, list_jobs_tool},
        {tool::k_get_job_status, get_job_status_tool},
        {tool::k_get_job_logs, get_job_logs_tool},
        {tool::k_wait_for_job, wait_for_job_tool},
        {tool::k_delete_job, delete_job_tool},
        {tool::k_tune_job, tune_job_tool},
        {tool::k_get_tune_status, get_tune_status_tool},
        {tool::k_diagnose_job, diagnose_job_tool},
        {tool::k_top_job, top_job_tool},
        {tool::k_check_cluster, check_cluster_tool},
    };
    for (const auto& [tool_name, run] : k_tools) {
        if (name == tool_name) {
            return run(arguments, ctx);
        }
    }
    return util::error(fmt::format("unknown tool: {}", name));
}

}  // namespace kftrain::agent
