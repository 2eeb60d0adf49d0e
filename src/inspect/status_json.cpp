#include "inspect/status_json.h"

#include "diagnose/stragglers.h"
#include "job/queue_status.h"
#include "util/json_optional.h"

namespace kftrain::inspect {
namespace {

using nlohmann::json;
using util::optional_json;

json replica_to_json(const job::ReplicaStatus& r) {
    json out = {{"name", r.name},         {"type", r.type},
                {"index", r.index},       {"state", r.state},
                {"reason", r.reason},     {"message", r.message},
                {"restarts", r.restarts}, {"exitCode", optional_json(r.exit_code)}};
    if (!r.pod.empty()) {
        out["pod"] = r.pod;
        out["node"] = r.node;
    }
    if (r.pid != 0) {
        out["pid"] = r.pid;
    }
    return out;
}

json cost_to_json(const util::Result<cost::JobCost>& cost) {
    if (!cost) {
        return {{"unknown", cost.error()}};
    }
    return {{"amount", cost->amount},
            {"currency", cost->currency},
            {"perHour", cost->per_hour},
            {"replicas", cost->replicas},
            {"elapsedSeconds", cost->elapsed_s},
            {"final", cost->final},
            {"gpu", cost->gpu},
            {"basis", cost->basis},
            {"prices", cost->prices}};
}

}  // namespace

json progress_to_json(const job::Progress& p) {
    json out = {{"event", p.event}, {"time", p.time}};
    auto put = [&out](const char* key, json value) {
        if (!value.is_null()) {
            out[key] = std::move(value);
        }
    };
    put("epoch", optional_json(p.epoch));
    put("epochs", optional_json(p.epochs));
    put("step", optional_json(p.step));
    put("stepsPerEpoch", optional_json(p.steps_per_epoch));
    put("globalStep", optional_json(p.global_step));
    put("loss", optional_json(p.loss));
    put("accuracy", optional_json(p.accuracy));
    put("samplesPerSec", optional_json(p.samples_per_sec));
    put("elapsedSeconds", optional_json(p.elapsed_s));
    put("etaSeconds", optional_json(p.eta_s));
    put("percent", optional_json(p.percent));
    put("stepsPerSec", optional_json(p.steps_per_sec));
    if (!p.source.empty()) {
        out["source"] = p.source;  // where the figures were read from (docs/progress.md)
    }
    if (!p.metrics.empty()) {
        json metrics = json::object();
        for (const auto& [name, value] : p.metrics) {
            metrics[name] = value;
        }
        out["metrics"] = std::move(metrics);
    }
    if (!p.rank_step_s.empty()) {
        out["rankStepSeconds"] = p.rank_step_s;
    }
    if (auto straggler = diagnose::find_straggler(p.rank_step_s)) {
        out["straggler"] = {{"rank", straggler->rank},
                            {"stepSeconds", straggler->step_s},
                            {"medianSeconds", straggler->median_s},
                            {"ratio", straggler->ratio}};
    }
    return out;
}

json status_to_json(const job::JobStatus& s, std::time_t now, const cost::Pricing* pricing) {
    json counts = json::object();
    for (const auto& [type, c] : s.counts) {
        counts[type] = {{"active", c.active}, {"succeeded", c.succeeded}, {"failed", c.failed}};
    }
    json replicas = json::array();
    for (const auto& r : s.replicas) {
        replicas.push_back(replica_to_json(r));
    }
    json doc = {{"name", s.name},
                {"kind", s.kind},
                {"namespace", s.namespace_},
                {"backend", s.backend},
                {"state", job::phase_name(s.phase)},
                {"reason", s.reason},
                {"message", s.message},
                {"why", s.why},
                {"created", s.created},
                {"started", s.started},
                {"finished", s.finished},
                {"suspendedSince", s.suspended_since},
                {"durationSeconds", optional_json(job::job_duration(s, now))},
                {"replicasWanted", s.replicas_wanted},
                {"replicaCounts", counts},
                {"replicas", replicas},
                {"progress", s.progress ? progress_to_json(*s.progress) : json(nullptr)},
                {"diagnosis", s.diagnosis},
                // When it was read from the job's record in history (the job gone); null: live.
                {"recorded", s.recorded.empty() ? json(nullptr) : json(s.recorded)}};
    if (pricing != nullptr) {
        doc["cost"] = cost_to_json(cost::job_cost(s, *pricing, now));
    }
    if (s.queue) {
        doc["queue"] = queue_to_json(*s.queue);
    }
    if (!s.progress_unread.empty()) {
        doc["progressNotRead"] = s.progress_unread;  // null progress is then unknown, not none
    }
    if (s.checkpoint) {
        const job::CheckpointReport& c = *s.checkpoint;
        doc["checkpoint"] = {{"failed", c.failed},
                             {"step", optional_json(c.step)},
                             {"failedStep", optional_json(c.failed_step)},
                             {"message", c.message},
                             {"path", c.path},
                             {"time", c.time}};
    }
    return doc;
}

}  // namespace kftrain::inspect
