#include "backend/local/describe.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "backend/local/state/state_dir.h"
#include "inspect/status_json.h"
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

job::DescribeField replica_field(const JobState& state, const ReplicaState& r) {
    auto replica = job::DescribeField::heading_of(r.name);
    auto& fields = replica.entries;
    fields.push_back({"State", r.state + (r.reason.empty() ? "" : " (" + r.reason + ")")});
    fields.push_back({"PID", r.pid == 0 ? "-" : std::to_string(r.pid)});
    fields.push_back({"Restarts", std::to_string(r.restarts)});
    fields.push_back({"Exit code", r.exit_code ? std::to_string(*r.exit_code) : "-"});
    fields.push_back({"Started", or_dash(r.started)});
    fields.push_back({"Finished", or_dash(r.finished)});
    fields.push_back({"Command", util::redact_credentials(util::format_argv(r.argv))});
    for (const auto& url : metrics_urls(r)) {
        fields.push_back({"Metrics", url});
    }
    auto env = job::DescribeField::heading_of("Environment");
    for (const auto& [name, value] : injected_env(state, r)) {
        env.entries.push_back({"", name + "=" + value});
    }
    fields.push_back(std::move(env));
    return replica;
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

std::vector<job::DescribePart> describe_parts(const JobState& state, const job::JobStatus& status) {
    std::vector<job::DescribeField> fields = {
        {"Name", state.name},
        {"Kind", state.kind},
        {"Backend", "local"},
        {"State directory", job_dir(state.name)},
        {"Phase", job::phase_name(status.phase)},
    };
    if (!status.reason.empty() || !status.message.empty()) {
        fields.push_back({"Reason", or_dash(status.reason)});
        fields.push_back({"Message", or_dash(status.message)});
    }
    if (!status.why.empty()) {
        fields.push_back({"Why", status.why});
    }
    fields.push_back({"Created", or_dash(state.created)});
    fields.push_back({"Started", or_dash(state.started)});
    fields.push_back({"Finished", or_dash(state.finished)});
    fields.push_back({"Working dir", or_dash(state.cwd)});
    if (!state.code_hash.empty()) {
        fields.push_back({"Code", fmt::format("{} ({}), copied at submit", state.code_hash,
                                              util::counted(state.code_files, "file"))});
    }
    fields.push_back({"Supervisor PID", std::to_string(state.supervisor_pid)});
    fields.push_back({"Restart policy", state.restart_policy});
    fields.push_back(
        {"Backoff limit", state.backoff_limit ? std::to_string(*state.backoff_limit) : "none"});
    for (const auto& line : status.diagnosis) {
        fields.push_back({"Diagnosis", line});
    }
    auto replicas = job::DescribeField::heading_of("Replicas");
    for (const auto& replica : state.replicas) {
        replicas.entries.push_back(replica_field(state, replica));
    }
    fields.push_back(std::move(replicas));
    fields.push_back({"Logs", logs_dir(state.name)});
    return {job::DescribePart{std::move(fields), std::nullopt}};
}

nlohmann::json describe_data(const JobState& state, const job::JobStatus& status, std::time_t now) {
    nlohmann::json data = inspect::status_to_json(status, now);
    data["stateDirectory"] = job_dir(state.name);
    data["logsDirectory"] = logs_dir(state.name);
    data["workingDir"] = state.cwd;
    if (!state.code_hash.empty()) {
        data["code"] = {{"hash", state.code_hash}, {"files", state.code_files}};
    }
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
