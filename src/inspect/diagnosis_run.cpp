#include "inspect/diagnosis_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "cost/saved_profile.h"
#include "estimate/program/sizing.h"
#include "manifest/job_spec.h"
#include "util/redact.h"
#include "util/time_text.h"

namespace kftrain::inspect {
namespace {

constexpr int k_tail_lines = 60;
constexpr double k_clock_skew_s = 300;
// Each previous attempt is a call of its own (and on a cluster, a lookup of the job): a job of
// hundreds of restarted pods must not cost hundreds of calls.
constexpr size_t k_max_previous_reads = 4;
constexpr size_t k_max_notes = 10;

// Split "2026-11-27T10:47:09.123Z text" (logs --timestamps) into its time and text.
diagnose::LogEvidence timestamped(const std::string& line) {
    size_t space = line.find(' ');
    if (space != std::string::npos && util::parse_timestamp(line.substr(0, space))) {
        return {line.substr(0, space), line.substr(space + 1)};
    }
    return {"", line};
}

// The last lines of each replica: one logs call for all, one more per replica whose current
// attempt follows a restart (its previous attempt holds the failure), for the first
// k_max_previous_reads of them and until one fails. What could not be read goes to notes.
// The lines each replica printed: those of the attempt that ended, and of the one before.
struct ReplicaLines {
    std::map<std::string, std::vector<diagnose::LogEvidence>> ended;
    std::map<std::string, std::vector<diagnose::LogEvidence>> before;
};

ReplicaLines read_lines(job::Backend& backend, const job::JobStatus& status,
                        std::vector<std::string>& notes) {
    std::map<std::string, std::vector<diagnose::LogEvidence>> lines;
    auto keep = [&lines, &notes](const job::LogLine& line) {
        if (!line.notice) {
            lines[line.replica].push_back(timestamped(line.text));
        } else if (notes.size() < k_max_notes) {
            notes.push_back(line.replica + ": " + line.text);
        }
    };
    // A read that failed as a whole (the job's lookup, the deadline) is noted as one.
    auto read = [&](const job::LogOptions& options, const std::string& what) {
        const size_t noted = notes.size();
        auto done = backend.logs(status.name, options, keep);
        if (!done && notes.size() == noted && notes.size() < k_max_notes) {
            notes.push_back(what + ": " + done.error());
        }
        return done.ok();
    };
    job::LogOptions options;
    options.tail = k_tail_lines;
    options.timestamps = true;
    options.known = &status;  // the job and its replicas as read: not read again per call
    read(options, "logs");    // a replica without a log just has no lines
    ReplicaLines out;
    size_t previous_reads = 0;
    for (const job::ReplicaStatus& replica : status.replicas) {
        if (replica.restarts > 0 && previous_reads++ < k_max_previous_reads) {
            std::vector<diagnose::LogEvidence> current = std::move(lines[replica.name]);
            lines[replica.name].clear();
            options.previous = true;
            options.replica = replica.name;
            const bool read_ok = read(options, replica.name + " (its previous attempt)");
            std::vector<diagnose::LogEvidence> previous = std::move(lines[replica.name]);
            // A replica running again (or waiting to) ended its previous attempt; a Failed one
            // its current, and the previous is the one before.
            if (replica.state != "Failed" && !previous.empty()) {
                lines[replica.name] = std::move(previous);
            } else {
                lines[replica.name] = std::move(current);
                out.before[replica.name] = std::move(previous);
            }
            if (!read_ok) {
                break;  // one read lost (to its deadline, say): the next would go the same way
            }
        }
    }
    out.ended = std::move(lines);
    return out;
}

diagnose::JobEvidence evidence_of(const job::JobStatus& status) {
    diagnose::JobEvidence job;
    job.name = status.name;
    job.kind = status.kind;
    job.phase = job::phase_name(status.phase);
    job.reason = status.reason;
    job.message = status.message;
    job.replicas_wanted = status.replicas_wanted;
    for (const job::ReplicaStatus& r : status.replicas) {
        diagnose::ReplicaEvidence replica;
        replica.name = r.name;
        replica.state = r.state;
        replica.reason = r.reason;
        replica.message = r.message;
        replica.last_reason = r.last_reason;
        replica.exit_code = r.exit_code;
        replica.restarts = r.restarts;
        replica.finished = r.finished;
        replica.memory_limited = r.memory_limited;
        replica.memory_limit_bytes = r.memory_limit_bytes;
        job.replicas.push_back(std::move(replica));
    }
    if (status.queue && !status.queue->local) {
        job.queue_state = status.queue->state == job::QueueState::Evicted   ? "evicted"
                          : status.queue->state == job::QueueState::Pending ? "pending"
                                                                            : "";
        job.queue_message = status.queue->message;
    }
    return job;
}

// Seconds since the newest progress report or log line, for a running job.
std::optional<double> idle_seconds(const diagnose::JobEvidence& job, const job::JobStatus& status,
                                   std::time_t now) {
    if (status.phase != job::JobPhase::Running) {
        return std::nullopt;
    }
    std::optional<double> newest;
    // A time past now by more than a clock's skew is a wrong clock's (a node's, a program's):
    // it must not make a stuck job look busy until that date.
    const double latest = static_cast<double>(now) + k_clock_skew_s;
    auto seen = [&newest, latest](const std::string& time) {
        if (auto t = util::parse_timestamp_seconds(time);
            t && *t <= latest && (!newest || *t > *newest)) {
            newest = t;
        }
    };
    if (status.progress) {
        seen(status.progress->time);
    }
    for (const auto& replica : job.replicas) {
        if (!replica.lines.empty()) {
            seen(replica.lines.back().time);
        }
    }
    seen(status.started);
    if (!newest) {
        return std::nullopt;
    }
    return static_cast<double>(now) - *newest;
}

// What estimate --measure saw a job of this name use: its saved profile, the one measured
// where the job runs first. Known only by its name, so when it was measured is said.
std::optional<diagnose::MeasuredMemory> measured_memory(const job::JobStatus& status) {
    auto profile =
        cost::read_named_profile(status.name, status.backend != manifest::k_backend_local);
    if (!profile) {
        return std::nullopt;
    }
    auto sizing = estimate::recommend_sizing(profile->sizes);
    if (!sizing) {
        return std::nullopt;
    }
    return diagnose::MeasuredMemory{sizing->peak_memory_bytes, sizing->peak_replicas,
                                    sizing->memory_bytes, profile->measured_at, profile->source};
}

}  // namespace

diagnose::Diagnosis diagnose_status(job::Backend& backend, const job::JobStatus& status,
                                    std::vector<diagnose::EventEvidence> events,
                                    double stuck_after_s, std::time_t now) {
    diagnose::JobEvidence evidence = evidence_of(status);
    std::vector<std::string> notes;
    ReplicaLines lines = read_lines(backend, status, notes);
    for (size_t i = 0; i < evidence.replicas.size(); ++i) {
        auto& replica = evidence.replicas[i];
        replica.lines = std::move(lines.ended[replica.name]);
        replica.previous_lines = std::move(lines.before[replica.name]);
        for (const auto& event : events) {  // a pod's eviction or preemption
            if (event.warning && (event.reason == "Evicted" || event.reason == "Preempted") &&
                !status.replicas[i].pod.empty() && event.object == status.replicas[i].pod &&
                replica.reason.empty()) {
                replica.reason = event.reason;
                replica.message = event.message;
            }
        }
    }
    evidence.events = std::move(events);
    evidence.stuck_after_seconds = stuck_after_s;
    evidence.idle_seconds = idle_seconds(evidence, status, now);
    evidence.measured = measured_memory(status);
    if (status.progress) {
        evidence.rank_step_s = status.progress->rank_step_s;
    }
    diagnose::Diagnosis d = diagnose::diagnose_job(evidence);
    for (const std::string& note : notes) {
        d.notes.push_back(util::mask_secrets(note));
    }
    return d;
}

util::Result<diagnose::Diagnosis> diagnose_with(job::Backend& backend, const std::string& job,
                                                double stuck_after_s, std::time_t now) {
    auto status = backend.status(job);
    if (!status) {
        return status.error_value();
    }
    return diagnose_status(backend, *status, backend.events(*status), stuck_after_s, now);
}

bool pods_missing(const job::JobStatus& status) {
    if (job::is_finished(status.phase) || status.phase == job::JobPhase::Suspended) {
        return false;
    }
    return status.replicas_wanted > 0
               ? static_cast<int>(status.replicas.size()) < status.replicas_wanted
               : status.replicas.empty();
}

std::string why_line(job::Backend& backend, const job::JobStatus& status,
                     const std::vector<diagnose::EventEvidence>& events, double stuck_after_s,
                     std::time_t now) {
    if (status.phase == job::JobPhase::Failed) {
        return diagnose_status(backend, status, events, stuck_after_s, now).why;
    }
    if (pods_missing(status)) {  // pods a quota refused: the job waits for them, for ever
        diagnose::JobEvidence evidence = evidence_of(status);
        evidence.events = events;
        if (auto found = diagnose::find_quota_refusal(evidence)) {
            return util::mask_secrets(diagnose::quota_why(*found));
        }
    }
    // A replica that restarted and is down again: a crash loop is named while the job runs on
    // (a restart that changed nothing is no progress).
    const bool down_again = std::any_of(
        status.replicas.begin(), status.replicas.end(), [](const job::ReplicaStatus& r) {
            return r.restarts > 0 && (r.state == "Restarting" || r.state == "Failed" ||
                                      r.reason == "CrashLoopBackOff");
        });
    if (down_again &&
        (status.phase == job::JobPhase::Running || status.phase == job::JobPhase::Restarting)) {
        diagnose::Diagnosis d = diagnose_status(backend, status, events, stuck_after_s, now);
        if (d.crash_loop) {
            return d.why;
        }
    }
    if (status.phase == job::JobPhase::Running && status.progress) {
        auto last = util::parse_timestamp_seconds(status.progress->time);
        if (last && static_cast<double>(now) - *last >= stuck_after_s) {
            return fmt::format("stuck? no progress report for {} (kftrain diagnose {})",
                               util::format_duration(static_cast<double>(now) - *last),
                               status.name);
        }
    }
    return "";
}

}  // namespace kftrain::inspect
