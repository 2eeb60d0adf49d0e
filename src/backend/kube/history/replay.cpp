#include "backend/kube/history/replay.h"

#include <fmt/format.h>

#include "backend/kube/job_reader.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/logs.h"
#include "backend/kube/status/describe.h"
#include "backend/kube/status/pods.h"
#include "job/exit_codes.h"
#include "progress/progress_line.h"
#include "progress/progress_reader.h"
#include "util/time_text.h"

namespace kftrain::backend::kube {
namespace {

// A kept line without the time kubectl logs --timestamps put before it.
std::string without_time(const std::string& line) {
    const size_t space = line.find(' ');
    if (space != std::string::npos && util::parse_timestamp(line.substr(0, space))) {
        return line.substr(space + 1);
    }
    return line;
}

// Return whether a kept line was printed before cutoff (seconds since the epoch); a line
// without kubectl's time is kept.
bool before(const std::string& line, double cutoff) {
    const auto at = util::parse_timestamp_seconds(line.substr(0, line.find(' ')));
    return at && *at < cutoff;
}

const history::ReplicaLog* kept_log(const history::Record& record, const std::string& replica,
                                    bool previous) {
    for (const auto& log : record.logs) {
        if (log.replica == replica && log.previous == previous) {
            return &log;
        }
    }
    return nullptr;
}

// The lead's last progress line and checkpoint, from its kept log.
void add_recorded_progress(const history::Record& record, job::JobStatus& status) {
    if (status.progress) {
        return;
    }
    const history::ReplicaLog* lead = kept_log(record, lead_replica(status), false);
    if (lead == nullptr) {
        return;
    }
    std::vector<std::string> lines;
    progress::ProgressReader reader;
    for (const auto& line : lead->lines) {
        lines.push_back(without_time(line));
        reader.take_output(lines.back() + "\n");
    }
    status.progress = reader.progress();
    status.checkpoint = progress::last_checkpoint(lines);
}

// The replicas options choose, as the kubernetes backend's logs() chooses them.
util::Result<std::vector<job::ReplicaStatus>> chosen_replicas(const job::JobStatus& status,
                                                              const job::LogOptions& options,
                                                              const job::LogSink& sink) {
    std::vector<job::ReplicaStatus> chosen;
    std::vector<std::string> names;
    for (const auto& replica : status.replicas) {
        names.push_back(replica.name);
        if (job::replica_matches(replica, options.replica)) {
            chosen.push_back(replica);
        }
    }
    if (chosen.empty()) {
        return util::error(options.replica.empty()
                               ? fmt::format("{} has no pods in its record", status.name)
                               : job::no_replica_message(status.name, options.replica, names),
                           k_exit_not_found);
    }
    if (!options.previous) {
        return chosen;
    }
    return previous_attempts(status.name, chosen, options.replica, sink);
}

}  // namespace

job::JobStatus status_from_record(const history::Record& record) {
    const auto kind =
        manifest::parse_kind(string_at(record.job, "kind")).value_or(manifest::JobKind::PyTorchJob);
    const JobReader& reader = job_reader(kind);
    job::JobStatus status = reader.status_from(record.job);
    auto pods = parse_pods(record.pods.dump(), status.name);
    if (pods) {
        status.replicas = std::move(*pods);
    }
    const auto selectors = reader.pod_selectors(record.job);
    status.pod_selector = selectors.empty() ? "" : selectors.front();
    reader.settle(status);
    status.diagnosis = diagnose(status, record_events(record, status));
    add_recorded_progress(record, status);
    status.recorded = record.summary.recorded;
    return status;
}

std::vector<KubeEvent> record_events(const history::Record& record, const job::JobStatus& status) {
    std::set<std::string> objects = {status.name};
    for (const auto& replica : status.replicas) {
        objects.insert(replica.pod);
    }
    return parse_events(record.events.dump(), objects, status.created);
}

util::Status record_logs(const history::Record& record, const job::JobStatus& status,
                         const job::LogOptions& options, const job::LogSink& sink) {
    auto chosen = chosen_replicas(status, options, sink);
    if (!chosen) {
        return chosen.error_value();
    }
    job::LogOptions read = options;
    if (auto note = job::bound_many_replicas(read, chosen->size()); !note.empty()) {
        sink({status.name, note, true});
    }
    // --since as kubectl reads it: lines printed in the last DURATION, from now.
    double cutoff = 0;
    if (!options.since.empty()) {
        auto since = util::parse_duration(options.since);
        if (!since) {
            return util::error(fmt::format("--since: {}", since.error()), k_exit_bad_input);
        }
        cutoff = static_cast<double>(std::time(nullptr)) - *since;
    }
    for (const auto& replica : *chosen) {
        const history::ReplicaLog* log = kept_log(record, replica.name, options.previous);
        if (log == nullptr) {
            sink({replica.name, "no log of it was kept in the record", true});
            continue;
        }
        size_t first = 0;
        if (read.tail && static_cast<size_t>(*read.tail) < log->lines.size()) {
            first = log->lines.size() - static_cast<size_t>(*read.tail);
        }
        if (log->cut && first == 0) {
            sink({replica.name,
                  fmt::format("the record kept its last {} lines: earlier ones were left out",
                              log->lines.size()),
                  true});
        }
        for (size_t i = first; i < log->lines.size(); ++i) {
            if (cutoff > 0 && before(log->lines[i], cutoff)) {
                continue;
            }
            sink({replica.name, options.timestamps ? log->lines[i] : without_time(log->lines[i]),
                  false});
        }
    }
    return util::ok_status();
}

job::JobDescription describe_record(const history::Record& record, const job::JobStatus& status,
                                    std::time_t now) {
    const auto events = record_events(record, status);
    nlohmann::json data = describe_data(status, record.job, events, now);
    return job::JobDescription{status, describe_parts(record.job, events, now), std::move(data)};
}

}  // namespace kftrain::backend::kube
