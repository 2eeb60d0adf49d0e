#include "cli/local/job_state.h"

#include <fmt/format.h>

#include "cli/exit_codes.h"
#include "cli/local/state_dir.h"
#include "util/json_optional.h"

namespace kftrain::cli::local {
namespace {

using nlohmann::json;

using util::optional_json;
using util::read_optional;
json replica_json(const ReplicaState& r) {
    return json{{"name", r.name},
                {"type", r.type},
                {"index", r.index},
                {"rank", r.rank},
                {"argv", r.argv},
                {"env", r.env},
                {"state", r.state},
                {"reason", r.reason},
                {"pid", r.pid},
                {"start_ticks", r.start_ticks},
                {"restarts", r.restarts},
                {"exit_code", optional_json(r.exit_code)},
                {"started", r.started},
                {"finished", r.finished},
                {"previous_started", r.previous_started},
                {"previous_finished", r.previous_finished}};
}

ReplicaState replica_from_json(const json& doc) {
    ReplicaState r;
    r.name = doc.at("name").get<std::string>();
    r.type = doc.at("type").get<std::string>();
    r.index = doc.value("index", 0);
    r.rank = doc.value("rank", 0);
    r.argv = doc.at("argv").get<std::vector<std::string>>();
    r.env = doc.value("env", std::map<std::string, std::string>{});
    r.state = doc.value("state", "Pending");
    r.reason = doc.value("reason", "");
    r.pid = doc.value("pid", 0LL);
    r.start_ticks = doc.value("start_ticks", 0ULL);
    r.restarts = doc.value("restarts", 0);
    read_optional(doc, "exit_code", r.exit_code);
    r.started = doc.value("started", "");
    r.finished = doc.value("finished", "");
    r.previous_started = doc.value("previous_started", "");
    r.previous_finished = doc.value("previous_finished", "");
    return r;
}

}  // namespace

json to_json(const JobState& s) {
    json replicas = json::array();
    for (const auto& r : s.replicas) {
        replicas.push_back(replica_json(r));
    }
    return json{{"version", s.version},
                {"name", s.name},
                {"namespace", s.namespace_},
                {"kind", s.kind},
                {"phase", s.phase},
                {"reason", s.reason},
                {"message", s.message},
                {"created", s.created},
                {"started", s.started},
                {"finished", s.finished},
                {"cwd", s.cwd},
                {"supervisor", {{"pid", s.supervisor_pid}, {"start_ticks", s.supervisor_ticks}}},
                {"master_port", s.master_port},
                {"restart_policy", s.restart_policy},
                {"backoff_limit", optional_json(s.backoff_limit)},
                {"active_deadline_seconds", optional_json(s.active_deadline_seconds)},
                {"replicas", replicas},
                {"resources", {{"cpu", s.cpu}, {"memory", s.memory}, {"gpus", s.gpus}}},
                {"node_selector", s.node_selector},
                {"last_progress", s.last_progress}};
}

util::Result<JobState> job_state_from_json(const json& doc) {
    try {
        JobState s;
        s.version = doc.value("version", 1);
        s.name = doc.at("name").get<std::string>();
        s.namespace_ = doc.value("namespace", "default");
        s.kind = doc.value("kind", "PyTorchJob");
        s.phase = doc.value("phase", "Created");
        s.reason = doc.value("reason", "");
        s.message = doc.value("message", "");
        s.created = doc.value("created", "");
        s.started = doc.value("started", "");
        s.finished = doc.value("finished", "");
        s.cwd = doc.value("cwd", "");
        if (doc.contains("supervisor")) {
            s.supervisor_pid = doc["supervisor"].value("pid", 0LL);
            s.supervisor_ticks = doc["supervisor"].value("start_ticks", 0ULL);
        }
        s.master_port = doc.value("master_port", 0);
        s.restart_policy = doc.value("restart_policy", "OnFailure");
        read_optional(doc, "backoff_limit", s.backoff_limit);
        read_optional(doc, "active_deadline_seconds", s.active_deadline_seconds);
        for (const auto& r : doc.at("replicas")) {
            s.replicas.push_back(replica_from_json(r));
        }
        s.has_resources = doc.contains("resources");
        if (s.has_resources) {
            s.cpu = doc["resources"].value("cpu", "");
            s.memory = doc["resources"].value("memory", "");
            s.gpus = doc["resources"].value("gpus", 0);
        }
        s.node_selector = doc.value("node_selector", std::map<std::string, std::string>{});
        s.last_progress = doc.value("last_progress", "");
        return s;
    } catch (const json::exception& e) {
        return util::error(fmt::format("malformed local job state: {}", e.what()));
    }
}

util::Result<JobState> read_job_state(const std::string& name) {
    auto checked = check_job_name(name);
    if (!checked) {
        return checked.error_value();
    }
    auto text = read_file(state_path(name));
    if (!text) {
        return util::error(
            fmt::format("job {} not found on this machine (no {})", name, state_path(name)),
            k_exit_not_found);
    }
    json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded()) {
        return util::error(fmt::format("{}: not valid JSON", state_path(name)));
    }
    return job_state_from_json(doc);
}

util::Status write_job_state(const JobState& state) {
    return write_file_atomic(state_path(state.name), to_json(state).dump(2) + "\n");
}

int total_restarts(const JobState& state) {
    int total = 0;
    for (const auto& r : state.replicas) {
        total += r.restarts;
    }
    return total;
}

bool is_lead_replica(const ReplicaState& replica) {
    return replica.type == "Master" || (replica.type == "Node" && replica.index == 0);
}

}  // namespace kftrain::cli::local
