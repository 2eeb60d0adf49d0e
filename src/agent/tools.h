#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "agent/child_runner.h"
#include "agent/policy.h"
#include "util/result.h"

namespace kftrain::agent {

// How long a verb that only reads or renders may take (the kubectl calls inside have their own
// deadlines).
inline constexpr std::chrono::seconds k_verb_timeout{120};

// What one tool call runs with.
struct CallContext {
    const ServerPolicy& policy;
    const ChildRunner& runner;
    const std::atomic<bool>& cancelled;                        // notifications/cancelled, or EOF
    std::function<void(const std::string& message)> progress;  // a no-op without progressToken
};

// Run the tool named name (one of tool_catalog's) with its arguments. The value is the
// call's structuredContent; an error is kftrain's message for an isError result.
util::Result<nlohmann::json> run_tool(const std::string& name, const nlohmann::json& arguments,
                                      const CallContext& ctx);

// The tools of the job file: render_job, estimate_job, submit_job, tune_job, and
// check_cluster (kftrain doctor, of a job file when given).
util::Result<nlohmann::json> render_job_tool(const nlohmann::json& arguments,
                                             const CallContext& ctx);
util::Result<nlohmann::json> estimate_job_tool(const nlohmann::json& arguments,
                                               const CallContext& ctx);
util::Result<nlohmann::json> submit_job_tool(const nlohmann::json& arguments,
                                             const CallContext& ctx);
util::Result<nlohmann::json> tune_job_tool(const nlohmann::json& arguments, const CallContext& ctx);
util::Result<nlohmann::json> check_cluster_tool(const nlohmann::json& arguments,
                                                const CallContext& ctx);

// The tools of a named job or search: list_jobs, get_job_status, get_job_logs, wait_for_job,
// delete_job, get_tune_status, diagnose_job, top_job.
util::Result<nlohmann::json> list_jobs_tool(const nlohmann::json& arguments,
                                            const CallContext& ctx);
util::Result<nlohmann::json> get_job_status_tool(const nlohmann::json& arguments,
                                                 const CallContext& ctx);
util::Result<nlohmann::json> get_job_logs_tool(const nlohmann::json& arguments,
                                               const CallContext& ctx);
util::Result<nlohmann::json> wait_for_job_tool(const nlohmann::json& arguments,
                                               const CallContext& ctx);
util::Result<nlohmann::json> delete_job_tool(const nlohmann::json& arguments,
                                             const CallContext& ctx);
util::Result<nlohmann::json> get_tune_status_tool(const nlohmann::json& arguments,
                                                  const CallContext& ctx);
util::Result<nlohmann::json> diagnose_job_tool(const nlohmann::json& arguments,
                                               const CallContext& ctx);
util::Result<nlohmann::json> top_job_tool(const nlohmann::json& arguments, const CallContext& ctx);

// Run one verb and read its stdout as JSON: the verb's own message when it fails.
util::Result<nlohmann::json> run_json_verb(const ChildRequest& request, const CallContext& ctx);

// Run one verb: its outcome when it exited 0, its own message otherwise.
util::Result<ChildOutcome> run_verb_ok(const ChildRequest& request, const CallContext& ctx);

}  // namespace kftrain::agent
