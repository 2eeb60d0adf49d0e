#include <fmt/format.h>

#include <chrono>

#include "agent/job_verb.h"
#include "agent/tools.h"
#include "mcp/arguments.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::agent {
namespace {

using json = nlohmann::json;
using kftrain::mcp::ArgumentReader;
using kftrain::mcp::JobArguments;

constexpr std::chrono::minutes k_submit_timeout{10};

}  // namespace

util::Result<json> render_job_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    JobArguments job = kftrain::mcp::read_job_arguments(reader);
    std::string kind = reader.text("kind");
    if (auto done = reader.finish({"job_file", "job_yaml", "set", "kind"}); !done) {
        return done.error_value();
    }
    auto verb = job_verb(job, ctx);
    if (!verb) {
        return verb.error_value();
    }
    auto rendered = render(*verb, kind, ctx);
    if (!rendered) {
        return rendered.error_value();
    }
    return json{{"kind", rendered->kind},
                {"name", rendered->name},
                {"namespace", rendered->ns},
                {"manifest", rendered->manifest}};
}

util::Result<json> estimate_job_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    JobArguments job = kftrain::mcp::read_job_arguments(reader);
    std::vector<long long> replicas = reader.integers("replicas", 1, 4096, 64);
    bool measure = reader.flag("measure", false);
    bool on_cluster = reader.flag("on_cluster", false);
    bool confirm = reader.flag("confirm", false);
    // A measurement runs the job's command: here only where the server runs jobs here (--local),
    // on the cluster only where it submits there (and within its budget); never when read-only,
    // and only when the caller confirms.
    if ((measure || on_cluster) && ctx.policy.read_only) {
        reader.refuse(
            "measure: true runs the job and saves its profile, and this server is read-only "
            "(--read-only)");
    } else if (on_cluster && !measure) {
        reader.refuse("on_cluster: true says where to measure: give measure: true with it");
    } else if (on_cluster && ctx.policy.local) {
        reader.refuse(
            "on_cluster: true measures on a cluster, and this server runs jobs on this machine "
            "(--local); drop on_cluster to measure here");
    } else if (measure && !on_cluster && !ctx.policy.local) {
        reader.refuse(
            "measure: true runs the job's command on this machine, and this server submits "
            "to a cluster; give on_cluster: true to measure there, or start it with --local");
    } else if (measure && !confirm) {
        reader.refuse(
            "measure: true runs the job for a minute or more (on_cluster: pods that cost "
            "money); nothing was run: call again with confirm: true");
    }
    if (auto done = reader.finish(
            {"job_file", "job_yaml", "set", "replicas", "measure", "on_cluster", "confirm"});
        !done) {
        return done.error_value();
    }
    auto verb = job_verb(job, ctx);
    if (!verb) {
        return verb.error_value();
    }
    if (on_cluster) {  // it submits: only in a namespace the server allows
        if (auto rendered = render(*verb, "", ctx); !rendered) {
            return rendered.error_value();
        }
    }
    return estimate(*verb, replicas, {measure, on_cluster}, ctx);
}

util::Result<json> check_cluster_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    const bool with_job = arguments.contains("job_file") || arguments.contains("job_yaml");
    JobArguments job = with_job ? kftrain::mcp::read_job_arguments(reader) : JobArguments{};
    const std::string requested = reader.text("namespace");
    if (auto done = reader.finish({"job_file", "job_yaml", "set", "namespace"}); !done) {
        return done.error_value();
    }
    ChildRequest request;
    if (with_job && requested.empty()) {
        // The job's namespace, as submit_job would use it, and refused where submit_job's is.
        auto verb = job_verb(job, ctx);
        if (!verb) {
            return verb.error_value();
        }
        if (auto rendered = render(*verb, "", ctx); !rendered) {
            return rendered.error_value();
        }
        request = verb->request({"doctor", "-o", "json"});
    } else {
        auto ns = call_namespace(ctx.policy, requested);
        if (!ns) {
            return ns.error_value();
        }
        std::vector<std::string> head = {"doctor", "-o", "json"};
        if (!ns->empty()) {
            head.insert(head.end(), {"-n", *ns});
        }
        request.args = head;
        request.timeout = k_verb_timeout;
        if (with_job) {  // the job checked in the namespace asked for, which -n gives it
            auto verb = job_verb(job, ctx);
            if (!verb) {
                return verb.error_value();
            }
            for (size_t i = 0; i < verb->args.size(); ++i) {
                if (verb->args[i] == "-n" && i + 1 < verb->args.size()) {
                    ++i;  // the server's default: the namespace asked for stands instead
                } else {
                    request.args.push_back(verb->args[i]);
                }
            }
            request.input = verb->input;
        }
    }
    auto outcome = ctx.runner.run(request, ctx.cancelled);
    if (!outcome) {
        return outcome.error_value();
    }
    // Exit 1 is a report with a failed check: the answer, not an error.
    if (outcome->cancelled || (outcome->code != 0 && outcome->code != 1)) {
        return util::error(outcome->message());
    }
    json report = util::parse_untrusted_json(outcome->out);
    if (report.is_discarded() || !report.is_object()) {
        return util::error("kftrain doctor printed no JSON object");
    }
    return report;
}

util::Result<json> submit_job_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    JobArguments job = kftrain::mcp::read_job_arguments(reader);
    bool dry_run = reader.flag("dry_run", true);
    bool confirm = reader.flag("confirm", false);
    if (auto done = reader.finish({"job_file", "job_yaml", "set", "dry_run", "confirm"}); !done) {
        return done.error_value();
    }
    if (!dry_run && !confirm) {
        return util::error(
            "submit_job: nothing submitted; a real submit needs confirm: true with dry_run: "
            "false");
    }
    auto verb = job_verb(job, ctx);
    if (!verb) {
        return verb.error_value();
    }
    auto rendered = render(*verb, "", ctx);
    if (!rendered) {
        return rendered.error_value();
    }
    JobCost cost = job_cost(*verb, *rendered, 1, ctx);
    json result = {{"dry_run", dry_run},        {"submitted", false},
                   {"kind", rendered->kind},    {"name", rendered->name},
                   {"namespace", rendered->ns}, {"estimate", cost.estimate},
                   {"budget", budget_json(ctx)}};
    const bool refused = ctx.policy.max_cost.has_value() && !cost.why.empty();
    if (dry_run) {
        result["manifest"] = rendered->manifest;
        result["message"] = fmt::format(
            "dry run: nothing submitted.{} To submit, call again with dry_run: false and "
            "confirm: true.",
            refused ? fmt::format(" A real submit would be refused: {}.", cost.why) : "");
        return result;
    }
    if (refused) {
        return util::error(
            fmt::format("submit_job {}: refused, nothing submitted: {}", rendered->name, cost.why));
    }
    ChildRequest submit = verb->request({"submit"});
    if (!verb->pins_namespace && !rendered->ns.empty()) {
        submit.args.insert(submit.args.end(), {"-n", rendered->ns});  // the namespace checked
    }
    if (ctx.policy.max_cost) {
        submit.args.insert(submit.args.end(),
                           {"--max-cost", fmt::format("{}", *ctx.policy.max_cost)});
    }
    submit.timeout = k_submit_timeout;
    auto outcome = run_verb_ok(submit, ctx);
    if (!outcome) {
        return outcome.error_value();
    }
    result["submitted"] = true;
    result["message"] = util::trim(outcome->out);
    return result;
}

}  // namespace kftrain::agent
