#include "history/summary.h"

#include <algorithm>
#include <map>

#include "estimate/running_cost.h"
#include "manifest/render/template_values.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::history {
namespace {

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() &&
           text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Return the earliest time one of the job's pods started a container ("Started" events).
std::optional<double> first_container_start(const std::vector<diagnose::EventEvidence>& events) {
    std::optional<double> first;
    for (const auto& event : events) {
        if (event.reason != "Started") {
            continue;
        }
        if (const auto at = util::parse_timestamp_seconds(event.time)) {
            first = first ? std::min(*first, *at) : *at;
        }
    }
    return first;
}

// The job's suspensions and resumptions in time order: true for a suspension. The operators'
// reasons end so (PyTorchJobSuspended, PyTorchJobResumed; JobSet's Suspended and Resumed).
std::multimap<double, bool> switches(const std::vector<diagnose::EventEvidence>& events) {
    std::multimap<double, bool> out;
    for (const auto& event : events) {
        const bool suspended = ends_with(event.reason, "Suspended");
        if (!suspended && !ends_with(event.reason, "Resumed")) {
            continue;
        }
        if (const auto at = util::parse_timestamp_seconds(event.time)) {
            out.emplace(*at, suspended);
        }
    }
    return out;
}

int restarts_of(const job::JobStatus& status) {
    int restarts = 0;
    for (const auto& replica : status.replicas) {
        restarts += std::max(replica.restarts, 0);
    }
    return restarts;
}

RecordCost price(const job::JobStatus& status, const cost::Pricing& pricing,
                 const std::optional<double>& run_s, std::time_t now) {
    RecordCost out;
    out.currency = pricing.catalog.currency;
    out.prices = pricing.catalog.file;
    auto priced = cost::job_cost(status, pricing, now);
    if (!priced) {
        out.unpriced = priced.error_value().message;
        return out;
    }
    out.per_hour = priced->per_hour;
    out.basis = priced->basis;
    if (!run_s) {
        out.unpriced = "when it ran is not known";
        return out;
    }
    out.amount = estimate::cost_so_far(*run_s, 1, priced->per_hour);
    return out;
}

}  // namespace

std::optional<double> run_seconds(const job::JobStatus& status,
                                  const std::vector<diagnose::EventEvidence>& events,
                                  std::time_t now) {
    std::optional<double> start = util::parse_timestamp_seconds(status.started);
    if (const auto container = first_container_start(events)) {
        start = start ? std::min(*start, *container) : *container;
    }
    if (!start) {
        return std::nullopt;
    }
    std::optional<double> end = util::parse_timestamp_seconds(status.finished);
    if (!end) {
        if (job::is_finished(status.phase)) {
            return std::nullopt;  // finished, but when is not known
        }
        end = static_cast<double>(now);
    }
    // Run from the start, off at each suspension, on again at the next resumption.
    double run = 0;
    std::optional<double> on = *start;
    for (const auto& [at, suspended] : switches(events)) {
        if (at <= *start || at >= *end) {
            continue;
        }
        if (suspended && on) {
            run += at - *on;
            on.reset();
        } else if (!suspended && !on) {
            on = at;
        }
    }
    if (on) {
        run += *end - *on;
    }
    return std::max(run, 0.0);
}

Summary summarize(const std::string& context, const job::JobStatus& status,
                  const std::vector<diagnose::EventEvidence>& events, const cost::Pricing& pricing,
                  const std::string& why, std::time_t now) {
    Summary s;
    s.context = context;
    s.namespace_ = status.namespace_;
    s.name = status.name;
    s.uid = status.uid;
    s.kind = status.kind;
    s.phase = job::phase_name(status.phase);
    s.reason = status.reason;
    s.created = status.created;
    s.started = status.started;
    s.finished = status.finished;
    s.recorded = util::format_timestamp(now);
    s.run_s = run_seconds(status, events, now);
    s.replicas = status.replicas_wanted;
    s.restarts = restarts_of(status);
    if (status.queue) {
        s.queue = status.queue->local_queue;
    } else if (const auto queue = status.labels.find(manifest::k_queue_label);
               queue != status.labels.end()) {
        s.queue = queue->second;
    }
    s.labels = status.labels;
    if (const auto by = status.labels.find(k_submitted_by_label); by != status.labels.end()) {
        s.submitted_by = by->second;
    }
    s.cost = price(status, pricing, s.run_s, now);
    if (const auto estimate = status.annotations.find(k_estimated_cost_annotation);
        estimate != status.annotations.end()) {
        const auto amount = util::parse_number(estimate->second, false);
        if (amount && *amount >= 0) {
            s.estimated_cost = *amount;
        }
    }
    s.why = job::is_finished(status.phase) && status.phase == job::JobPhase::Failed ? why : "";
    return s;
}

}  // namespace kftrain::history
