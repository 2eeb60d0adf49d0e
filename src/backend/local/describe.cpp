#include "backend/local/describe.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "backend/local/state/state_dir.h"
#include "job/status_json.h"
#include "manifest/framework.h"
#include "util/redact.h"
#include "util/subprocess.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

std::string or_dash(const std::string& text) {
    return text.empty() ? "-" : text;
}

// Return what the job's operator set in a replica's env (its kind's and framework's variables),
// in the order the operator's docs list them, credentials masked.
std::vector<std::pair<std::string, std::string>> injected_env(const JobState& state,
                                                              const ReplicaState& r) {
    const auto kind = manifest::parse_kind(state.kind).value_or(manifest::JobKind::PyTorchJob);
    const auto framework =
        manifest::parse_framework(state.framework).value_or(manifest::Framework::torch);
    std::vector<std::pair<std::string, std::string>> env;
    for (const std::string& name : manifest::operator_variables(kind, framework)) {
        auto it = r.env.find(name);
        if (it != r.env.end()) {
            env.emplace_back(name, util::redact_credentials(it->second));
        }
    }
    return env;
}

// Return where a replica's processes serve their metrics on this machine: nothing unless it
// runs (its ports are given when it starts, and go with it).
std::vector<std::string> metrics_urls(const ReplicaState& r) {
    std::vector<std::string> urls;
    for (int i = 0;
         r.state == "Running" && r.metrics_port > 0 && i < std::max(r.metrics_processes, 1); ++i) {
        urls.push_back(fmt::format("http://127.0.0.1:{}{}", r.metrics_port + i, r.metrics_path));
    }
    return urls;
}

void describe_replica(std::string& out, const JobState& state, const ReplicaState& r) {
    out += fmt::format("  {}:\n", r.name);
    out += fmt::format("    State:     {}{}\n", r.state,
                       r.reason.empty() ? "" : " (" + r.reason + ")");
    out += fmt::format("    PID:       {}\n", r.pid == 0 ? "-" : std::to_string(r.pid));
    out += fmt::format("    Restarts:  {}\n", r.restarts);
    out += fmt::format("    Exit code: {}\n",
                       r.exit_code ? std::to_string(*r.exit_code) : std::string("-"));
    out += fmt::format("    Started:   {}\n", or_dash(r.started));
    out += fmt::format("    Finished:  {}\n", or_dash(r.finished));
    out += fmt::format("    Command:   {}\n", util::redact_credentials(util::format_argv(r.argv)));
    for (const auto& url : metrics_urls(r)) {
        out += fmt::format("    Metrics:   {}\n", url);
    }
    out += "    Environment:\n";
    for (const auto& [name, value] : injected_env(state, r)) {
        out += fmt::format("      {}={}\n", name, value);
    }
}

const ReplicaState* find_replica(const JobState& state, const std::string& name) {
    for (const auto& replica : state.replicas) {
        if (replica.name == name) {
            return &replica;
        }
    }
    return nullptr;
}

}  // namespace

std::string describe_text(const JobState& state, const job::JobStatus& status) {
    std::string out;
    out += fmt::format("Name:            {}\n", state.name);
    out += fmt::format("Kind:            {}\n", state.kind);
    out += "Backend:         local\n";
    out += fmt::format("State directory: {}\n", job_dir(state.name));
    out += fmt::format("Phase:           {}\n", job::phase_name(status.phase));
    if (!status.reason.empty() || !status.message.empty()) {
        out += fmt::format("Reason:          {}\n", or_dash(status.reason));
        out += fmt::format("Message:         {}\n", or_dash(status.message));
    }
    if (!status.why.empty()) {
        out += fmt::format("Why:             {}\n", util::escape_controls(status.why));
    }
    out += fmt::format("Created:         {}\n", or_dash(state.created));
    out += fmt::format("Started:         {}\n", or_dash(state.started));
    out += fmt::format("Finished:        {}\n", or_dash(state.finished));
    out += fmt::format("Working dir:     {}\n", or_dash(state.cwd));
    out += fmt::format("Supervisor PID:  {}\n", state.supervisor_pid);
    out += fmt::format("Restart policy:  {}\n", state.restart_policy);
    out += fmt::format("Backoff limit:   {}\n",
                       state.backoff_limit ? std::to_string(*state.backoff_limit) : "none");
    for (const auto& line : status.diagnosis) {
        out += fmt::format("Diagnosis:       {}\n", line);
    }
    out += "Replicas:\n";
    for (const auto& replica : state.replicas) {
        describe_replica(out, state, replica);
    }
    out += fmt::format("Logs:            {}\n", logs_dir(state.name));
    return out;
}

nlohmann::json describe_data(const JobState& state, const job::JobStatus& status, std::time_t now) {
    nlohmann::json data = job::status_to_json(status, now);
    data["stateDirectory"] = job_dir(state.name);
    data["logsDirectory"] = logs_dir(state.name);
    data["workingDir"] = state.cwd;
    data["supervisorPid"] = state.supervisor_pid;
    data["restartPolicy"] = state.restart_policy;
    data["backoffLimit"] = state.backoff_limit ? nlohmann::json(*state.backoff_limit) : nullptr;
    for (auto& replica : data["replicas"]) {
        const ReplicaState* r = find_replica(state, replica.value("name", ""));
        if (r == nullptr) {
            continue;
        }
        nlohmann::json command = nlohmann::json::array();
        for (const auto& arg : r->argv) {
            command.push_back(util::redact_credentials(arg));
        }
        replica["started"] = r->started;
        replica["finished"] = r->finished;
        replica["command"] = std::move(command);
        nlohmann::json env = nlohmann::json::object();
        for (const auto& [name, value] : injected_env(state, *r)) {
            env[name] = value;
        }
        replica["environment"] = std::move(env);
        replica["metrics"] = metrics_urls(*r);
    }
    return data;
}

}  // namespace kftrain::backend::local
