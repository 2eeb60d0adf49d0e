#include "backend/kube/history/gather.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

#include "backend/kube/json_fields.h"
#include "backend/kube/logs.h"
#include "backend/kube/status/events.h"
#include "cost/estimate_inputs.h"
#include "history/summary.h"
#include "inspect/diagnosis_json.h"
#include "inspect/diagnosis_run.h"
#include "job/exit_codes.h"
#include "manifest/job_kind.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

// Read a JSON object kubectl printed; what names the part for an error.
util::Result<json> get_object(KubeQueries& queries, const std::vector<std::string>& args,
                              const std::string& what) {
    auto out = queries.run(args, "reading " + what);
    if (!out) {
        return out.error_value();
    }
    return parse_json_object(*out);
}

// The objects whose events belong to the record: the job and its pods.
std::set<std::string> recorded_objects(const job::JobStatus& status) {
    std::set<std::string> objects = {status.name};
    for (const auto& replica : status.replicas) {
        objects.insert(replica.pod);
    }
    return objects;
}

// The namespace's events about the job and its pods, as a List (none readable: an empty one).
json events_list(KubeQueries& queries, const job::JobStatus& status) {
    json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
    auto out = queries.run({"get", "events", "-o", "json"}, "reading events");
    if (!out) {
        return list;
    }
    const json all = util::parse_untrusted_json(*out);
    const json& items = member(all, "items");
    if (!items.is_array()) {
        return list;
    }
    const std::set<std::string> objects = recorded_objects(status);
    for (const json& item : items) {
        if (objects.count(string_at(member(item, "involvedObject"), "name")) > 0) {
            list["items"].push_back(item);
        }
    }
    return list;
}

// Each replica's log of one attempt (previous: the one before the last restart), as kept.
std::vector<history::ReplicaLog> kept_logs(KubectlRunner& kubectl, KubeQueries& queries,
                                           const std::vector<job::ReplicaStatus>& replicas,
                                           const std::string& selector, bool previous) {
    std::map<std::string, std::vector<std::string>> lines;
    job::LogOptions options;
    options.all = true;
    options.tail = static_cast<int>(history::k_record_log_lines);
    options.timestamps = true;  // the diagnosis of a record reads when each line was printed
    options.previous = previous;
    (void)fetch_logs(kubectl, replicas, selector, options, queries.namespace_args(),
                     [&lines](const job::LogLine& line) {
                         if (!line.notice) {
                             lines[line.replica].push_back(line.text);
                         }
                     });
    std::vector<history::ReplicaLog> kept;
    for (const auto& replica : replicas) {
        auto found = lines.find(replica.name);
        if (found != lines.end()) {
            kept.push_back(history::keep_log(replica.name, previous, found->second));
        }
    }
    return kept;
}

}  // namespace

std::string context_name(KubeQueries& queries, const std::string& context) {
    if (!context.empty()) {
        return context;
    }
    auto result = queries.call({"config", "current-context"}, false);
    if (!result || !result->ok()) {
        return "";
    }
    return util::trim(result->out);
}

std::string namespace_name(KubeQueries& queries, const std::string& ns) {
    if (!ns.empty()) {
        return ns;
    }
    auto result =
        queries.call({"config", "view", "--minify", "-o", "jsonpath={..namespace}"}, false);
    const std::string current = result && result->ok() ? util::trim(result->out) : "";
    return current.empty() ? "default" : current;
}

util::Result<history::Record> gather_record(job::Backend& backend, KubeQueries& queries,
                                            KubectlRunner& kubectl, const job::JobStatus& status,
                                            const std::string& context, std::time_t now) {
    const auto kind = manifest::parse_kind(status.kind).value_or(manifest::JobKind::PyTorchJob);
    history::Record record;
    auto object =
        get_object(queries, {"get", manifest::kind_resource(kind), "-o", "json", "--", status.name},
                   job::job_ref(status.kind, status.name));
    if (!object) {
        return object.error_value();
    }
    record.job = std::move(*object);
    record.pods = json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", json::array()}};
    if (!status.pod_selector.empty()) {
        auto pods = get_object(queries, {"get", "pods", "-l", status.pod_selector, "-o", "json"},
                               "the pods of " + status.name);
        if (!pods) {
            return pods.error_value();
        }
        record.pods = std::move(*pods);
    }
    record.events = events_list(queries, status);
    record.logs = kept_logs(kubectl, queries, status.replicas, status.pod_selector, false);
    std::vector<job::ReplicaStatus> restarted;
    for (const auto& replica : status.replicas) {
        if (replica.restarts > 0) {
            restarted.push_back(replica);
        }
    }
    if (!restarted.empty()) {
        for (auto& log : kept_logs(kubectl, queries, restarted, status.pod_selector, true)) {
            record.logs.push_back(std::move(log));
        }
    }
    const auto events = event_evidence(
        parse_events(record.events.dump(), recorded_objects(status), status.created));
    const auto diagnosis =
        inspect::diagnose_status(backend, status, events, inspect::k_default_stuck_after_s, now);
    record.diagnosis =
        json::parse(inspect::diagnosis_to_json(status.name, status.kind, diagnosis).dump());
    // The default catalog (KFTRAIN_PRICES, else the built-in one), as status prices a job; one
    // that cannot be read leaves the record unpriced, saying why, rather than unkept.
    auto loaded = cost::load_pricing("", "");
    const cost::Pricing pricing = loaded ? std::move(*loaded) : cost::Pricing{};
    record.summary =
        history::summarize(context, status, events, pricing,
                           status.phase == job::JobPhase::Failed ? diagnosis.why : "", now);
    return record;
}

}  // namespace kftrain::backend::kube
