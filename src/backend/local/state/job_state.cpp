#include "backend/local/state/job_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <type_traits>

#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "util/json_fields.h"
#include "util/json_optional.h"
#include "util/json_text.h"

namespace kftrain::backend::local {
namespace {

using nlohmann::json;

using util::optional_json;
json replica_json(const ReplicaState& r) {
    return json{{"name", r.name},
                {"type", r.type},
                {"index", r.index},
                {"rank", r.rank},
                {"argv", r.argv},
                {"metrics_port", r.metrics_port},
                {"metrics_processes", r.metrics_processes},
                {"metrics_path", r.metrics_path},
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

using Fields = util::JsonFields;
using FieldError = util::JsonFieldError;

ReplicaState replica_from_json(const Fields& f) {
    ReplicaState r;
    r.name = f.get<std::string>("name", "", true);
    r.type = f.get<std::string>("type", "", true);
    r.index = f.get("index", 0);
    r.rank = f.get("rank", 0);
    r.argv = f.list("argv");
    r.metrics_port = f.get("metrics_port", 0);
    r.metrics_processes = f.get("metrics_processes", 0);
    r.metrics_path = f.get("metrics_path", std::string("/metrics"));
    r.env = f.strings("env");
    r.state = f.get<std::string>("state", "Pending");
    r.reason = f.get<std::string>("reason", "");
    r.pid = f.get("pid", 0LL);
    r.start_ticks = f.get("start_ticks", 0ULL);
    r.restarts = f.get("restarts", 0);
    f.check(r.restarts >= 0, "restarts", "a count");
    if (f.doc().contains("exit_code") && !f.doc().at("exit_code").is_null()) {
        // As a shell reports a process's end: its status, or 128 and the signal.
        const json& code = f.doc().at("exit_code");
        f.check(
            code.is_number_integer() && code.get<long long>() >= 0 && code.get<long long>() <= 255,
            "exit_code", "an exit code from 0 to 255");
        r.exit_code = code.get<int>();
    }
    r.started = f.get<std::string>("started", "");
    r.finished = f.get<std::string>("finished", "");
    r.previous_started = f.get<std::string>("previous_started", "");
    r.previous_finished = f.get<std::string>("previous_finished", "");
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
                {"framework", s.framework},
                {"phase", s.phase},
                {"reason", s.reason},
                {"message", s.message},
                {"created", s.created},
                {"started", s.started},
                {"finished", s.finished},
                {"suspended", s.suspended},
                {"cwd", s.cwd},
                {"code", {{"hash", s.code_hash}, {"files", s.code_files}}},
                {"supervisor", {{"pid", s.supervisor_pid}, {"start_ticks", s.supervisor_ticks}}},
                {"master_port", s.master_port},
                {"restart_policy", s.restart_policy},
                {"backoff_limit", optional_json(s.backoff_limit)},
                {"max_restarts", optional_json(s.max_restarts)},
                {"job_restarts", s.job_restarts},
                {"active_deadline_seconds", optional_json(s.active_deadline_seconds)},
                {"replicas", replicas},
                {"resources",
                 {{"cpu", s.cpu},
                  {"memory", s.memory},
                  {"cpu_limit", s.cpu_limit},
                  {"memory_limit", s.memory_limit},
                  {"gpus", s.gpus}}},
                {"node_selector", s.node_selector},
                {"last_progress", s.last_progress},
                {"last_checkpoint", s.last_checkpoint},
                {"logs_error", s.logs_error},
                {"trainer_status", s.trainer_status},
                {"queue",
                 {{"name", s.queue},
                  {"priority_class", s.priority_class},
                  {"queued", s.queued},
                  {"order", s.queue_order},
                  {"admitted", s.admitted}}}};
}

namespace {

// What each replica asks for: the job file's quantities as written.
void resources_from_fields(const Fields& f, JobState& s) {
    s.has_resources = f.doc().contains("resources");
    Fields resources = f.object("resources");
    s.cpu = resources.get<std::string>("cpu", "");
    s.memory = resources.get<std::string>("memory", "");
    s.cpu_limit = resources.get<std::string>("cpu_limit", "");
    s.memory_limit = resources.get<std::string>("memory_limit", "");
    s.gpus = resources.get("gpus", 0);
}

// Read state.json's replicas; each a type and index of its own (a repeat is refused: two
// would merge under one name).
std::vector<ReplicaState> replicas_from_fields(const Fields& f) {
    std::vector<ReplicaState> out;
    f.check(f.doc().contains("replicas") && f.doc().at("replicas").is_array(), "replicas",
            "a list");
    const json& replicas = f.doc().at("replicas");
    for (size_t i = 0; i < replicas.size(); ++i) {
        f.check(replicas[i].is_object(), "replicas", "an object", fmt::format("[{}]", i));
        out.push_back(replica_from_json(Fields(replicas[i], fmt::format("replicas[{}]", i))));
        const ReplicaState& r = out.back();
        for (size_t j = 0; j < i; ++j) {
            const ReplicaState& other = out[j];
            f.check(other.name != r.name && (other.type != r.type || other.index != r.index),
                    "replicas", "an index of its own", fmt::format("[{}].index", i));
        }
    }
    return out;
}

JobState job_from_fields(const Fields& f) {
    JobState s;
    s.version = f.get("version", 1);
    s.name = f.get<std::string>("name", "", true);
    s.namespace_ = f.get<std::string>("namespace", "default");
    s.kind = f.get<std::string>("kind", "PyTorchJob");
    s.framework = f.get<std::string>("framework", "PyTorch");
    s.phase = f.get<std::string>("phase", "Created");
    s.reason = f.get<std::string>("reason", "");
    s.message = f.get<std::string>("message", "");
    s.created = f.get<std::string>("created", "");
    s.started = f.get<std::string>("started", "");
    s.finished = f.get<std::string>("finished", "");
    s.suspended = f.get<std::string>("suspended", "");
    s.cwd = f.get<std::string>("cwd", "");
    Fields code = f.object("code");
    s.code_hash = code.get<std::string>("hash", "");
    s.code_files = code.get("files", 0LL);
    Fields supervisor = f.object("supervisor");
    s.supervisor_pid = supervisor.get("pid", 0LL);
    s.supervisor_ticks = supervisor.get("start_ticks", 0ULL);
    s.master_port = f.get("master_port", 0);
    s.restart_policy = f.get<std::string>("restart_policy", "OnFailure");
    if (f.doc().contains("backoff_limit") && !f.doc().at("backoff_limit").is_null()) {
        s.backoff_limit = f.get("backoff_limit", 0);
    }
    if (f.doc().contains("max_restarts") && !f.doc().at("max_restarts").is_null()) {
        s.max_restarts = f.get("max_restarts", 0);
    }
    s.job_restarts = f.get("job_restarts", 0);
    if (f.doc().contains("active_deadline_seconds") &&
        !f.doc().at("active_deadline_seconds").is_null()) {
        s.active_deadline_seconds = f.get("active_deadline_seconds", 0LL);
    }
    s.replicas = replicas_from_fields(f);
    resources_from_fields(f, s);
    s.node_selector = f.strings("node_selector");
    s.last_progress = f.get<std::string>("last_progress", "");
    s.last_checkpoint = f.get<std::string>("last_checkpoint", "");
    s.logs_error = f.get<std::string>("logs_error", "");
    s.trainer_status = f.get<std::string>("trainer_status", "");
    Fields queue = f.object("queue");
    s.queue = queue.get<std::string>("name", "");
    s.priority_class = queue.get<std::string>("priority_class", "");
    s.queued = queue.get<std::string>("queued", "");
    s.queue_order = queue.get("order", 0LL);
    s.admitted = queue.get<std::string>("admitted", "");
    return s;
}

}  // namespace

util::Result<JobState> job_state_from_json(const json& doc) {
    if (!doc.is_object()) {
        return util::error("not a JSON object");
    }
    try {
        return job_from_fields(Fields(doc, ""));
    } catch (const FieldError& e) {
        return util::error(e.message);
    } catch (const json::exception& e) {
        return util::error(fmt::format("malformed: {}", e.what()));
    }
}

util::Result<JobState> read_job_state(const std::string& name) {
    auto checked = state::check_job_name(name);
    if (!checked) {
        return checked.error_value();
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(job_dir(name), ec)) {
        return util::error(
            fmt::format("job {} not found on this machine (no {})", name, state_path(name)),
            k_exit_not_found);
    }
    auto unreadable = [&](const std::string& why) {
        return util::error(fmt::format("state.json of job {}: {}; remove the job with: kftrain "
                                       "delete {} --local --force",
                                       name, why, name),
                           k_exit_cluster);
    };
    auto text = state::read_state_file(state_path(name));
    if (!text) {
        return unreadable(fmt::format("cannot read {}", state_path(name)));
    }
    json doc = util::parse_untrusted_json(*text);
    if (doc.is_discarded()) {
        return unreadable("not valid JSON");
    }
    auto state = job_state_from_json(doc);
    if (!state) {
        return unreadable(state.error());
    }
    if (state->name != name) {
        return unreadable(fmt::format("field 'name' is {}, not the job's name", state->name));
    }
    return state;
}

util::Status write_job_state(const JobState& state) {
    return util::write_file_atomic(state_path(state.name),
                                   util::json_text(to_json(state), 2) + "\n");
}

int total_restarts(const JobState& state) {
    int total = 0;
    for (const auto& r : state.replicas) {
        total += r.restarts;
    }
    return total;
}

bool decides_success(const JobState& state, const ReplicaState& replica) {
    if (replica.type == "Master" || replica.type == "Chief") {
        return true;
    }
    // A TFJob without a Chief succeeds with Worker 0 (tfjob_controller.go, successPolicy "").
    return state.kind == "TFJob" && replica.type == "Worker" && replica.index == 0 &&
           std::none_of(state.replicas.begin(), state.replicas.end(),
                        [](const ReplicaState& r) { return r.type == "Chief"; });
}

bool is_lead_replica(const ReplicaState& replica) {
    // The Master; else rank 0: node 0, or a JAXJob's Worker 0.
    return replica.type == "Master" || (replica.index == 0 && replica.rank == 0);
}

}  // namespace kftrain::backend::local
