#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

#include "cli/mcp/tools.h"
#include "mcp/arguments.h"
#include "util/text.h"

namespace kftrain::cli::mcp {
namespace {

using json = nlohmann::json;
using kftrain::mcp::ArgumentReader;
using kftrain::mcp::JobArguments;

constexpr std::chrono::minutes k_submit_timeout{10};
constexpr std::chrono::hours k_measure_timeout{1};
// A measurement or a local search stops the jobs it started on SIGINT; it gets this long.
constexpr std::chrono::seconds k_stop_grace{20};

// How a job verb gets the job file: -f PATH or -f - with the YAML on stdin, then --set and -n.
struct JobVerb {
    std::vector<std::string> args;
    std::string input;

    ChildRequest request(std::vector<std::string> head) const {
        ChildRequest r;
        r.args = std::move(head);
        r.args.insert(r.args.end(), args.begin(), args.end());
        r.input = input;
        r.timeout = k_verb_timeout;
        return r;
    }
};

util::Result<JobVerb> job_verb(const JobArguments& job, const CallContext& ctx) {
    JobVerb verb;
    if (!job.job_file.empty()) {
        auto path = resolve_job_file(ctx.policy.root, job.job_file);
        if (!path) {
            return path.error_value();
        }
        verb.args = {"-f", *path};
    } else {
        verb.args = {"-f", "-"};  // the same bounded reader as any -f -
        verb.input = job.job_yaml;
    }
    for (const std::string& set : job.sets) {
        verb.args.insert(verb.args.end(), {"--set", set});
    }
    if (!ctx.policy.default_namespace.empty()) {
        verb.args.insert(verb.args.end(), {"-n", ctx.policy.default_namespace});
    }
    return verb;
}

// What render -o json says of the job.
struct Rendered {
    std::string kind;
    std::string name;
    std::string ns;
    long long replicas = 1;  // pods: a PyTorchJob's Master and Workers, a TrainJob's numNodes
    json manifest;
};

long long manifest_replicas(const json& manifest) {
    const json spec = manifest.value("spec", json::object());
    if (spec.contains("pytorchReplicaSpecs")) {
        long long total = 0;
        for (const auto& [type, replica] : spec["pytorchReplicaSpecs"].items()) {
            total += replica.value("replicas", 1LL);
        }
        return total;
    }
    return spec.value("trainer", json::object()).value("numNodes", 1LL);
}

util::Result<Rendered> render(const JobVerb& verb, const std::string& kind,
                              const CallContext& ctx) {
    std::vector<std::string> head = {"render", "-o", "json"};
    if (!kind.empty()) {
        head.insert(head.end(), {"--kind", kind});
    }
    auto doc = run_json_verb(verb.request(head), ctx);
    if (!doc) {
        return doc.error_value();
    }
    Rendered rendered;
    const json metadata = doc->value("metadata", json::object());
    rendered.kind = doc->value("kind", "");
    rendered.name = metadata.value("name", "");
    rendered.ns = metadata.value("namespace", "");
    rendered.replicas = manifest_replicas(*doc);
    rendered.manifest = std::move(*doc);
    if (auto allowed = check_job_namespace(ctx.policy, rendered.ns); !allowed) {
        return allowed.error_value();
    }
    return rendered;
}

// Read estimate -o json into the tool's shape: one row per size.
json estimate_shape(const json& report) {
    json rows = json::array();
    for (const json& size : report.value("sizes", json::array())) {
        rows.push_back({{"replicas", size.value("replicas", 0)},
                        {"total_seconds", size.value("total_s", 0.0)},
                        {"speedup", size.value("speedup", 0.0)},
                        {"efficiency", size.value("efficiency", 0.0)},
                        {"cost", size.value("cost", json())},
                        {"basis", size.value("step_basis", "")}});
    }
    return {{"job", report.value("job", "")},
            {"currency", report.value("currency", "")},
            {"profile_source", report.value("profile", json::object()).value("source", "")},
            {"rows", rows},
            {"fastest", report.value("fastest", json())},
            {"cheapest", report.value("cheapest", json())},
            {"assumptions", report.value("assumptions", json::array())}};
}

util::Result<json> estimate(const JobVerb& verb, const std::vector<long long>& replicas,
                            bool measure, const CallContext& ctx) {
    std::vector<std::string> head = {"estimate", "-o", "json"};
    if (!replicas.empty()) {
        head.insert(head.end(), {"--workers", fmt::format("{}", fmt::join(replicas, ","))});
    }
    ChildRequest request = verb.request(head);
    if (measure) {
        request.args.push_back("--measure");
        request.timeout = k_measure_timeout;
        request.grace = k_stop_grace;
        request.on_err = [&ctx](const std::string& line) { ctx.progress(line); };
    }
    auto report = run_json_verb(request, ctx);
    if (!report) {
        return report.error_value();
    }
    return estimate_shape(*report);
}

// The estimate of the job at its own replicas, or why there is none.
struct JobCost {
    json estimate;    // {replicas, total_seconds, cost, currency}, or null
    std::string why;  // when there is none, or a budget refuses it
};

JobCost job_cost(const JobVerb& verb, const Rendered& job, long long runs, const CallContext& ctx) {
    JobCost cost;
    auto report = estimate(verb, {job.replicas}, false, ctx);
    if (!report) {
        cost.why = fmt::format(
            "it cannot be estimated: {} (for a program of your own, estimate_job with measure: "
            "true measures it here and saves its profile)",
            report.error());
        return cost;
    }
    for (const json& row : (*report)["rows"]) {
        if (row["replicas"] == job.replicas) {
            cost.estimate = {{"replicas", job.replicas},
                             {"total_seconds", row["total_seconds"]},
                             {"cost", row["cost"]},
                             {"currency", (*report)["currency"]}};
        }
    }
    const std::optional<double>& budget = ctx.policy.max_cost;
    if (!budget) {
        return cost;
    }
    if (cost.estimate.is_null() || !cost.estimate["cost"].is_number()) {
        cost.why = "the estimate has no cost at the job's replicas";
    } else if (double total = cost.estimate["cost"].get<double>() * static_cast<double>(runs);
               total > *budget) {
        cost.why =
            fmt::format("its estimated cost {:.2f} {} ({} replicas{}) is over the budget of {:.2f}",
                        total, cost.estimate["currency"].get<std::string>(), job.replicas,
                        runs > 1 ? fmt::format(", {} trials", runs) : "", *budget);
    }
    return cost;
}

json budget_json(const CallContext& ctx) {
    return ctx.policy.max_cost ? json(*ctx.policy.max_cost) : json();
}

// Read tune_job's search arguments into tune's flags.
std::vector<std::string> search_args(ArgumentReader& reader) {
    std::vector<std::string> head = {"tune"};
    for (const std::string& param : reader.strings("params", kftrain::mcp::k_max_list_items)) {
        head.insert(head.end(), {"--param", param});
    }
    if (std::string objective = reader.text("objective"); !objective.empty()) {
        head.insert(head.end(), {"--objective", objective});
    }
    if (auto trials = reader.integer("max_trials", 1, 10000)) {
        head.insert(head.end(), {"--max-trials", std::to_string(*trials)});
    }
    if (auto parallel = reader.integer("parallel", 1, 64)) {
        head.insert(head.end(), {"--parallel", std::to_string(*parallel)});
    }
    return head;
}

// Start the search the Experiment describes, within the budget: on the cluster the Experiment
// is created; here the trials run to the end. Return the search's status.
util::Result<json> start_search(const JobVerb& verb, const std::vector<std::string>& head,
                                const json& experiment, const CallContext& ctx) {
    const json metadata = experiment.value("metadata", json::object());
    const std::string name = metadata.value("name", "");
    const std::string ns = metadata.value("namespace", "");
    if (ctx.policy.max_cost) {
        auto rendered = render(verb, "", ctx);
        if (!rendered) {
            return rendered.error_value();
        }
        long long trials = experiment.value("spec", json::object()).value("maxTrialCount", 1LL);
        if (JobCost cost = job_cost(verb, *rendered, trials, ctx); !cost.why.empty()) {
            return util::error(
                fmt::format("tune_job {}: refused, no search started: {}", name, cost.why));
        }
    }
    ChildRequest run = verb.request(head);
    run.timeout.reset();  // a local search runs to its end; cancelling the call stops it
    run.grace = k_stop_grace;
    run.on_out = [&ctx](const std::string& line) { ctx.progress(line); };
    auto outcome = run_verb_ok(run, ctx);
    if (!outcome) {
        return outcome.error_value();
    }
    ChildRequest look;
    look.args = {"tune", "status", name, "-o", "json"};
    if (!ns.empty()) {
        look.args.insert(look.args.end(), {"-n", ns});
    }
    look.timeout = k_verb_timeout;
    auto search = run_json_verb(look, ctx);
    if (!search) {
        return search.error_value();
    }
    return json{{"dry_run", false},
                {"name", name},
                {"search", *search},
                {"message", fmt::format("search {}: {}", name, search->value("phase", ""))}};
}

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
    if (measure && ctx.policy.read_only) {
        reader.refuse(
            "measure: true runs the job on this machine and saves its profile, and "
            "this server is read-only (--read-only)");
    }
    if (auto done = reader.finish({"job_file", "job_yaml", "set", "replicas", "measure"}); !done) {
        return done.error_value();
    }
    auto verb = job_verb(job, ctx);
    if (!verb) {
        return verb.error_value();
    }
    return estimate(*verb, replicas, measure, ctx);
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

util::Result<json> tune_job_tool(const json& arguments, const CallContext& ctx) {
    ArgumentReader reader(arguments);
    JobArguments job = kftrain::mcp::read_job_arguments(reader);
    std::vector<std::string> head = search_args(reader);
    bool dry_run = reader.flag("dry_run", true);
    bool confirm = reader.flag("confirm", false);
    if (auto done = reader.finish({"job_file", "job_yaml", "set", "params", "objective",
                                   "max_trials", "parallel", "dry_run", "confirm"});
        !done) {
        return done.error_value();
    }
    if (!dry_run && !confirm) {
        return util::error(
            "tune_job: no search started; a real search needs confirm: true with dry_run: "
            "false");
    }
    auto verb = job_verb(job, ctx);
    if (!verb) {
        return verb.error_value();
    }
    std::vector<std::string> preview = head;
    preview.insert(preview.end(), {"--dry-run", "-o", "json"});
    auto experiment = run_json_verb(verb->request(preview), ctx);
    if (!experiment) {
        return experiment.error_value();
    }
    const json metadata = experiment->value("metadata", json::object());
    if (auto allowed = check_job_namespace(ctx.policy, metadata.value("namespace", "")); !allowed) {
        return allowed.error_value();
    }
    if (dry_run) {
        return json{{"dry_run", true},
                    {"name", metadata.value("name", "")},
                    {"experiment", *experiment},
                    {"message",
                     "dry run: no search started. To start it, call again with dry_run: false "
                     "and confirm: true."}};
    }
    return start_search(*verb, head, *experiment, ctx);
}

}  // namespace kftrain::cli::mcp
