#include "agent/job_verb.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "manifest/job_kind.h"
#include "manifest/yaml/input.h"
#include "util/json_fields.h"

namespace kftrain::agent {
namespace {

using json = nlohmann::json;

constexpr std::chrono::hours k_measure_timeout{1};

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

// Whether the job names its namespace itself: a top-level namespace key of its file, or a
// --set of one. (Unreadable text names none; the render that follows says what is wrong.)
bool names_namespace(const std::string& job_yaml, const std::vector<std::string>& sets) {
    for (const std::string& set : sets) {
        if (set.rfind("namespace=", 0) == 0) {
            return true;
        }
    }
    auto parsed = manifest::parse_yaml(job_yaml, "job");
    return parsed && parsed->IsMap() && (*parsed)["namespace"];
}

}  // namespace

long long manifest_replicas(const json& manifest) {
    const json spec = manifest.value("spec", json::object());
    const auto kind = manifest::parse_kind(manifest.value("kind", ""));
    if (kind && manifest::is_operator_kind(*kind)) {
        long long total = 0;
        const json specs = spec.value(manifest::operator_kind(*kind).replica_specs, json::object());
        for (const auto& [type, replica] : specs.items()) {
            total += replica.is_object() ? replica.value("replicas", 1LL) : 1;
        }
        return total;
    }
    return spec.value("trainer", json::object()).value("numNodes", 1LL);
}

json without_code(json doc) {
    if (util::string_at(doc, "kind") != "List") {
        return doc;
    }
    for (const json& item : util::member(doc, "items")) {
        if (item.is_object() && util::string_at(item, "kind") != "ConfigMap") {
            return item;
        }
    }
    return json::object();
}

ChildRequest JobVerb::request(std::vector<std::string> head) const {
    ChildRequest r;
    r.args = std::move(head);
    r.args.insert(r.args.end(), args.begin(), args.end());
    r.input = input;
    r.timeout = k_verb_timeout;
    return r;
}

util::Result<JobVerb> job_verb(const kftrain::mcp::JobArguments& job, const CallContext& ctx) {
    JobVerb verb;
    // The job file is read once, here; every verb of the call gets the same text through the
    // same bounded reader as any -f -.
    // A job's code (code.path) is read only beneath the server's root, taken from there.
    verb.args = {"-f", "-", "--code-root", ctx.policy.root};
    verb.input = job.job_yaml;
    if (!job.job_file.empty()) {
        auto text = read_job_file(ctx.policy.root, job.job_file);
        if (!text) {
            return text.error_value();
        }
        verb.input = std::move(*text);
    }
    for (const std::string& set : job.sets) {
        verb.args.insert(verb.args.end(), {"--set", set});
    }
    // The server's -n moves every job there. Without one, a job that names no namespace goes
    // to the first --allow-namespace (the documented default), and one that names its own
    // keeps it, to be refused after the render if it is not allowed.
    if (!ctx.policy.default_namespace.empty()) {
        verb.args.insert(verb.args.end(), {"-n", ctx.policy.default_namespace});
        verb.pins_namespace = true;
    } else if (!ctx.policy.allowed_namespaces.empty() && !names_namespace(verb.input, job.sets)) {
        verb.args.insert(verb.args.end(), {"-n", ctx.policy.allowed_namespaces.front()});
        verb.pins_namespace = true;
    }
    return verb;
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
    doc = without_code(std::move(*doc));
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

util::Result<json> estimate(const JobVerb& verb, const std::vector<long long>& replicas,
                            Measuring measuring, const CallContext& ctx) {
    std::vector<std::string> head = {"estimate", "-o", "json"};
    if (!replicas.empty()) {
        head.insert(head.end(), {"--workers", fmt::format("{}", fmt::join(replicas, ","))});
    }
    ChildRequest request = verb.request(head);
    if (measuring.measure) {
        request.args.push_back("--measure");
        if (measuring.on_cluster) {
            request.args.push_back("--on-cluster");
            if (ctx.policy.max_cost) {
                request.args.insert(request.args.end(),
                                    {"--max-cost", fmt::format("{}", *ctx.policy.max_cost)});
            } else {
                request.args.push_back("--yes");
            }
        }
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

JobCost job_cost(const JobVerb& verb, const Rendered& job, long long runs, const CallContext& ctx) {
    JobCost cost;
    auto report = estimate(verb, {job.replicas}, {}, ctx);
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

}  // namespace kftrain::agent
