#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/tools.h"
#include "mcp/arguments.h"
#include "util/result.h"

namespace kftrain::agent {

// A measurement or a local search stops the jobs it started on SIGINT; it gets this long.
inline constexpr std::chrono::seconds k_stop_grace{20};

// How a job verb gets the job file: -f - with its text on stdin (read once per call), then
// --set and -n.
struct JobVerb {
    std::vector<std::string> args;
    std::string input;
    bool pins_namespace = false;  // args hold -n: the server's namespace, or the default one

    // Return a request for the verb head (e.g. {"render", "-o", "json"}) on this job file.
    ChildRequest request(std::vector<std::string> head) const;
};

// Read the job file of a call (job_file inside the root, or job_yaml) into a JobVerb.
util::Result<JobVerb> job_verb(const kftrain::mcp::JobArguments& job, const CallContext& ctx);

// Return the object of a rendered List that is not the code's ConfigMap (a job or an
// Experiment that ships code prints its ConfigMap first), an empty object when it has none;
// doc itself when it is no List. What a tool returns holds no file's content (--root's files
// reach the cluster in the ConfigMap, never the agent).
nlohmann::json without_code(nlohmann::json doc);

// What render -o json says of the job.
struct Rendered {
    std::string kind;
    std::string name;
    std::string ns;
    long long replicas = 1;  // pods: a PyTorchJob's Master and Workers, a TrainJob's numNodes
    nlohmann::json manifest;
};

// Return how many replicas a rendered manifest runs (what the budget prices): every replica
// type's of a Training Operator kind (a TFJob's Chief, Workers, PS and Evaluator alike), a
// TrainJob's numNodes.
long long manifest_replicas(const nlohmann::json& manifest);

// Render the job (kind: "" for the job file's), refusing a namespace the policy does not allow.
util::Result<Rendered> render(const JobVerb& verb, const std::string& kind, const CallContext& ctx);

// How estimate_job measures: not at all, on this machine, or on the cluster.
struct Measuring {
    bool measure = false;
    bool on_cluster = false;
};

// Run estimate -o json at these replica counts (none: the verb's defaults), measuring first
// when asked (on the cluster: --max-cost at the policy's budget, else --yes), and return it in
// estimate_job's shape.
util::Result<nlohmann::json> estimate(const JobVerb& verb, const std::vector<long long>& replicas,
                                      Measuring measuring, const CallContext& ctx);

// The estimate of the job at its own replicas, or why there is none.
struct JobCost {
    nlohmann::json estimate;  // {replicas, total_seconds, cost, currency}, or null
    std::string why;          // when there is none, or a budget refuses it
};

// Estimate the job at its replicas and judge runs of it against the policy's budget.
JobCost job_cost(const JobVerb& verb, const Rendered& job, long long runs, const CallContext& ctx);

// Return the budget as JSON: the amount, or null without one.
nlohmann::json budget_json(const CallContext& ctx);

}  // namespace kftrain::agent
