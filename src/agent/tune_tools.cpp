#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "agent/job_verb.h"
#include "agent/tools.h"
#include "mcp/arguments.h"

namespace kftrain::agent {
namespace {

using json = nlohmann::json;
using kftrain::mcp::ArgumentReader;
using kftrain::mcp::JobArguments;

// The cost of one run of the job at its replicas, with extra --set overrides; nullopt with why.
std::optional<double> run_cost(const JobVerb& verb, long long replicas,
                               const std::vector<std::string>& sets, const CallContext& ctx,
                               std::string& why) {
    JobVerb with = verb;
    for (const std::string& set : sets) {
        with.args.insert(with.args.end(), {"--set", set});
    }
    auto report = estimate(with, {replicas}, {}, ctx);
    if (!report) {
        why = report.error();
        return std::nullopt;
    }
    for (const json& row : (*report)["rows"]) {
        if (row["replicas"] == replicas && row["cost"].is_number()) {
            return row["cost"].get<double>();
        }
    }
    why = "the estimate has no cost at the job's replicas";
    return std::nullopt;
}

// The values of a searched parameter to price: a list's, or a range's ends.
std::vector<std::string> priced_values(const json& parameter) {
    const json space = parameter.value("feasibleSpace", json::object());
    std::vector<std::string> values;
    for (const json& value : space.value("list", json::array())) {
        values.push_back(value.is_string() ? value.get<std::string>() : value.dump());
    }
    for (const char* end : {"min", "max"}) {
        if (space.contains(end) && space[end].is_string()) {
            values.push_back(space[end].get<std::string>());
        }
    }
    return values;
}

// Why the search may cost more than the budget, or "": every trial is priced at the job's own
// settings, scaled by the dearest value of each searched trainer setting (epochs, samples and
// batchSize change what a trial costs), times the most trials. A ${trialParameters.X} of a
// program of your own changes what the program does, which no estimate can price.
std::string over_budget(const JobVerb& verb, const json& experiment, const CallContext& ctx) {
    constexpr size_t k_max_priced = 32;
    auto rendered = render(verb, "", ctx);
    if (!rendered) {
        return rendered.error();
    }
    std::string why;
    std::optional<double> base = run_cost(verb, rendered->replicas, {}, ctx, why);
    if (!base) {
        return fmt::format("it cannot be estimated: {}", why);
    }
    const json spec = experiment.value("spec", json::object());
    double per_trial = *base;
    size_t priced = 0;
    for (const json& parameter : spec.value("parameters", json::array())) {
        const std::string name = parameter.value("name", "");
        if (verb.input.find("${trialParameters." + name + "}") != std::string::npos) {
            return fmt::format(
                "${{trialParameters.{}}} changes what the program does, which "
                "the estimate cannot price under a budget",
                name);
        }
        double dearest = *base;
        for (const std::string& value : priced_values(parameter)) {
            if (++priced > k_max_priced) {
                return fmt::format("more than {} values to price", k_max_priced);
            }
            auto cost = run_cost(verb, rendered->replicas,
                                 {fmt::format("trainer.{}={}", name, value)}, ctx, why);
            if (!cost) {
                return fmt::format("it cannot be estimated at {}={}: {}", name, value, why);
            }
            dearest = std::max(dearest, *cost);
        }
        per_trial *= *base > 0 ? dearest / *base : 1.0;
    }
    const long long trials = spec.value("maxTrialCount", 1LL);
    const double total = per_trial * static_cast<double>(trials);
    if (total > *ctx.policy.max_cost) {
        return fmt::format(
            "its trials may cost up to {:.2f} ({} trials at up to {:.4f} each, priced at the "
            "dearest value of each parameter), over the budget of {:.2f}",
            total, trials, per_trial, *ctx.policy.max_cost);
    }
    return "";
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
        if (std::string why = over_budget(verb, experiment, ctx); !why.empty()) {
            return util::error(
                fmt::format("tune_job {}: refused, no search started: {}", name, why));
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
    auto printed = run_json_verb(verb->request(preview), ctx);
    if (!printed) {
        return printed.error_value();
    }
    // A job that ships code prints its ConfigMap first: the Experiment alone is checked and
    // returned, never the files' content.
    const json experiment = without_code(std::move(*printed));
    const json metadata = experiment.value("metadata", json::object());
    if (auto allowed = check_job_namespace(ctx.policy, metadata.value("namespace", "")); !allowed) {
        return allowed.error_value();
    }
    if (dry_run) {
        std::string verdict;
        if (ctx.policy.max_cost) {
            std::string why = over_budget(*verb, experiment, ctx);
            verdict = why.empty() ? " It is within the budget."
                                  : fmt::format(" A real search would be refused: {}.", why);
        }
        return json{{"dry_run", true},
                    {"name", metadata.value("name", "")},
                    {"experiment", experiment},
                    {"message", fmt::format("dry run: no search started.{} To start it, call "
                                            "again with dry_run: false and confirm: true.",
                                            verdict)}};
    }
    return start_search(*verb, head, experiment, ctx);
}

}  // namespace kftrain::agent
