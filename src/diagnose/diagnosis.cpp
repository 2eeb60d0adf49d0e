#include "diagnose/diagnosis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <limits>

#include "util/redact.h"
#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::diagnose {
namespace {

constexpr size_t k_last_lines = 10;  // of a failure no line explains

// The longest detail, why and evidence line kept: a program's line may be megabytes long.
constexpr size_t k_max_detail = 400;
constexpr size_t k_max_line = 2000;

// Return text cut to at most limit bytes on a UTF-8 character's boundary, "..." marking the
// cut.
std::string clip(const std::string& text, size_t limit) {
    if (text.size() <= limit) {
        return text;
    }
    size_t cut = limit - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
        --cut;
    }
    return text.substr(0, cut) + "...";
}

// Cut what a diagnosis quotes from programs and the cluster to readable lengths, credentials
// masked (status, describe and CI logs show the why line).
void clip_quotes(Diagnosis& d) {
    d.why = util::mask_secrets(d.why);
    for (ReplicaEnd& end : d.timeline) {
        end.detail = util::mask_secrets(clip(end.detail, k_max_detail));
        end.last_line = util::mask_secrets(clip(end.last_line, k_max_line));
    }
    for (LogEvidence& line : d.evidence) {
        line.text = util::mask_secrets(clip(line.text, k_max_line));
    }
}

bool one_of(const std::string& text, std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return text == n; });
}

// Whether kftrain or the operator stopped the replica (another one ended the job first).
bool stopped_by_job(const ReplicaEvidence& r) {
    return one_of(r.reason, {"Stopped", "Suspended"}) || r.state == "Terminating";
}

bool ended_badly(const ReplicaEvidence& r) {
    return r.state == "Failed" || r.state == "Restarting" || r.restarts > 0 ||
           (r.exit_code && *r.exit_code != 0);
}

// What the replica's pod or process says, before its lines are read.
Cause pod_cause(const ReplicaEvidence& r) {
    if (r.reason == "OOMKilled" || r.last_reason == "OOMKilled") {
        return Cause::OutOfMemory;
    }
    if (one_of(r.reason, {"ImagePullBackOff", "ErrImagePull", "InvalidImageName"})) {
        return Cause::ImagePull;
    }
    if (r.reason == "Unschedulable") {
        return Cause::Unschedulable;
    }
    if (r.reason == "Evicted") {
        return Cause::Evicted;
    }
    if (r.reason.find("Preempt") != std::string::npos) {
        return Cause::Preempted;
    }
    return Cause::None;
}

// Whether the replica's last attempt failed: it is Failed, or waits to start again after a
// failure (a kubelet's CrashLoopBackOff, kftrain's Restarting). One the job stopped, or one
// running again, did not.
bool last_attempt_failed(const ReplicaEvidence& r) {
    return r.state == "Failed" || r.state == "Restarting" || r.reason == "CrashLoopBackOff";
}

std::string exit_text(const ReplicaEnd& end) {
    if (end.signal != 0) {
        return fmt::format("killed by {}", signal_name(end.signal));
    }
    if (end.exit_code) {
        return fmt::format("exit code {}", *end.exit_code);
    }
    return end.reason.empty() ? end.state : end.reason;
}

ReplicaEnd replica_end(const ReplicaEvidence& r, LogFinding& finding) {
    ReplicaEnd end;
    end.name = r.name;
    end.state = r.state;
    end.ended = r.finished;
    end.exit_code = r.exit_code;
    // 128 and the signal, as shells and Kubernetes report a process killed by one.
    end.signal =
        r.exit_code && *r.exit_code > 128 && *r.exit_code <= 128 + 64 ? *r.exit_code - 128 : 0;
    end.reason = r.reason;
    end.restarts = r.restarts;
    end.last_line = r.lines.empty() ? "" : r.lines.back().text;
    finding = read_log(r.lines);
    end.failed_attempts = r.restarts + (last_attempt_failed(r) ? 1 : 0);
    if (!r.previous_lines.empty() && finding.cause != Cause::None) {
        const LogFinding before = read_log(r.previous_lines);
        end.same_as_previous = before.cause == finding.cause && before.detail == finding.detail;
    }
    if (Cause cause = pod_cause(r); cause == Cause::OutOfMemory && r.reason != "OOMKilled") {
        // Killed on its previous attempt, and now restarting (CrashLoopBackOff): the back-off
        // message says nothing of memory.
        end.cause = cause;
        end.detail = r.reason.empty() ? "OOMKilled on its previous attempt"
                                      : "OOMKilled on its previous attempt, now " + r.reason;
    } else if (cause != Cause::None) {
        end.cause = cause;
        end.detail = util::trim(r.message.empty() ? (r.reason.empty() ? r.last_reason : r.reason)
                                                  : r.message);
    } else if (finding.cause != Cause::None) {
        end.cause = finding.cause;
        end.detail = finding.detail;
    } else if (stopped_by_job(r) || !ended_badly(r)) {
        end.cause = Cause::None;
    } else if (end.signal == SIGKILL && r.memory_limited) {
        end.cause = Cause::OutOfMemory;
        end.detail = "exit code 137 (SIGKILL) under a memory limit";
    } else if (end.signal != 0) {
        end.cause = Cause::Signal;
        end.detail = fmt::format("killed by {}", signal_name(end.signal));
    } else if (r.reason == "CrashLoopBackOff") {
        end.cause = Cause::CrashLoop;
        end.detail = r.message;
    } else {
        end.cause = Cause::Unknown;
        end.detail = exit_text(end);
    }
    return end;
}

bool is_pending_cause(Cause cause) {
    return cause == Cause::ImagePull || cause == Cause::Unschedulable;
}

// Order of the time axis: ended replicas by their end, the first failure's consequences after
// a failure of the same moment, running ones last.
bool earlier(const ReplicaEnd& a, const ReplicaEnd& b) {
    if (a.ended.empty() != b.ended.empty()) {
        return !a.ended.empty();
    }
    // A time that cannot be read is no earlier than any other.
    const double unknown = std::numeric_limits<double>::infinity();
    double ta = util::parse_timestamp_seconds(a.ended).value_or(unknown);
    double tb = util::parse_timestamp_seconds(b.ended).value_or(unknown);
    if (ta != tb) {
        return ta < tb;
    }
    return (a.cause != Cause::PeerGone) && (b.cause == Cause::PeerGone);
}

std::vector<LogEvidence> last_lines(const ReplicaEvidence& r) {
    size_t from = r.lines.size() > k_last_lines ? r.lines.size() - k_last_lines : 0;
    return {r.lines.begin() + static_cast<long>(from), r.lines.end()};
}

// Add the last line of every replica but skip, as "name | line": where each one was.
void add_last_lines(Diagnosis& d, const JobEvidence& job, const std::string& skip) {
    for (const ReplicaEvidence& r : job.replicas) {
        if (r.name != skip && !r.lines.empty()) {
            LogEvidence last = r.lines.back();
            last.text = r.name + " | " + last.text;
            d.evidence.push_back(last);
        }
    }
}

// A crash loop: failed in 3 attempts or more, or in 2 not known to differ. A replica that
// failed once is not one, nor one whose attempts failed in different ways.
bool is_crash_loop(const ReplicaEnd& end) {
    if (end.same_as_previous == false) {
        return false;
    }
    return end.failed_attempts >= 3 || end.failed_attempts == 2;
}

std::string crash_loop_why(const ReplicaEnd& end, const CrashLoop& loop) {
    const std::string what = end.cause == Cause::Signal ? exit_text(end) : end.detail;
    if (loop.attempts == 2 && loop.last_two_same) {
        return fmt::format("crash loop: each of {}'s 2 attempts failed with {}", end.name, what);
    }
    return fmt::format("crash loop: each of {}'s {} attempts failed, the last {}with {}", end.name,
                       loop.attempts, loop.last_two_same ? "2 " : "", what);
}

void explain_failure(Diagnosis& d, const JobEvidence& job, const std::vector<LogFinding>& found) {
    const ReplicaEnd* first = nullptr;
    for (const ReplicaEnd& end : d.timeline) {  // in time order
        if (end.cause == Cause::None || is_pending_cause(end.cause)) {
            continue;
        }
        if (first == nullptr || (first->cause == Cause::PeerGone && end.cause != Cause::PeerGone)) {
            first = &end;
        }
    }
    if (first == nullptr) {
        return;
    }
    d.verdict = job.phase == "Failed" ? "failed" : "failing";
    d.cause = first->cause;
    d.replica = first->name;
    for (ReplicaEnd& end : d.timeline) {
        end.first = end.name == first->name;
        if (!end.first && end.cause == Cause::PeerGone) {
            d.consequences.push_back(end.name);
        }
    }
    for (size_t i = 0; i < job.replicas.size(); ++i) {
        if (job.replicas[i].name == first->name) {
            d.evidence = found[i].lines.empty() ? last_lines(job.replicas[i]) : found[i].lines;
        }
    }
    std::string restarts = first->restarts > 0 ? fmt::format(", {} restarts", first->restarts) : "";
    if (is_crash_loop(*first)) {
        d.crash_loop =
            CrashLoop{first->name, first->failed_attempts, first->same_as_previous.value_or(false)};
        d.why = crash_loop_why(*first, *d.crash_loop);
    } else {
        d.why = fmt::format("{} failed first ({}{}): {}", first->name, exit_text(*first), restarts,
                            cause_title(first->cause));
        if (first->cause != Cause::Signal) {
            d.why += ": " + first->detail;
        }
    }
    if (first->cause == Cause::Rendezvous) {
        add_last_lines(d, job, first->name);  // what the master was doing instead
    }
    if (!d.consequences.empty()) {
        d.why += fmt::format("; then {} lost {} peer", fmt::join(d.consequences, ", "),
                             d.consequences.size() == 1 ? "its" : "their");
    }
}

std::string hint_of(const Diagnosis& d) {
    if (d.quota && !d.quota->refusal.must_specify.empty()) {
        return fmt::format(
            "the quota needs every container to set {}: give the job its resources (the "
            "rendered pods then carry requests and limits), or ask the namespace admin for a "
            "LimitRange whose defaults fill them",
            fmt::join(d.quota->refusal.must_specify, ", "));
    }
    const std::string hint = d.memory ? d.memory->text : cause_hint(d.cause);
    if (!d.crash_loop) {
        return hint;
    }
    return fmt::format(
        "the same failure ends every attempt, so retrying will not mend it: {}; "
        "--retries 0 fails such a job at its first failure",
        hint);
}

// A first failure out of host memory: its limit, and what a measurement saw.
void explain_memory(Diagnosis& d, const JobEvidence& job) {
    if (d.cause != Cause::OutOfMemory || d.replica.empty()) {
        return;
    }
    const auto end = std::find_if(d.timeline.begin(), d.timeline.end(),
                                  [&d](const ReplicaEnd& e) { return e.name == d.replica; });
    for (const ReplicaEvidence& r : job.replicas) {
        if (r.name == d.replica && end != d.timeline.end()) {
            d.memory = memory_fix(r, end->detail, job.measured);
        }
    }
}

void explain_pending(Diagnosis& d) {
    if (!d.verdict.empty()) {
        return;
    }
    for (const ReplicaEnd& end : d.timeline) {
        if (is_pending_cause(end.cause)) {
            d.verdict = "pending";
            d.cause = end.cause;
            d.replica = end.name;
            d.why = fmt::format("{} cannot start: {}: {}", end.name, cause_title(end.cause),
                                end.detail);
            return;
        }
    }
}

// Pods a quota refused at creation: the job waits for pods that will not come.
void explain_quota(Diagnosis& d, const JobEvidence& job) {
    if (!d.verdict.empty() || job.phase == "Failed" || job.phase == "Suspended") {
        return;
    }
    d.quota = find_quota_refusal(job);
    if (!d.quota) {
        return;
    }
    d.verdict = "pending";
    d.cause = Cause::Quota;
    d.why = quota_why(*d.quota);
    d.evidence.push_back({d.quota->time, fmt::format("{} {}: {}", d.quota->object, d.quota->reason,
                                                     d.quota->message)});
}

void explain_stuck(Diagnosis& d, const JobEvidence& job) {
    d.verdict = "stuck";
    d.cause = Cause::Stuck;
    d.why = fmt::format("running, but no progress report or log line for {}",
                        util::format_duration(*job.idle_seconds));
    add_last_lines(d, job, "");
}

}  // namespace

std::string signal_name(int signal) {
    switch (signal) {
        case SIGKILL:
            return "SIGKILL";
        case SIGTERM:
            return "SIGTERM";
        case SIGINT:
            return "SIGINT";
        case SIGSEGV:
            return "SIGSEGV";
        case SIGABRT:
            return "SIGABRT";
        case SIGBUS:
            return "SIGBUS";
        case SIGHUP:
            return "SIGHUP";
        case SIGFPE:
            return "SIGFPE";
        case SIGILL:
            return "SIGILL";
        case SIGPIPE:
            return "SIGPIPE";
        default:
            return fmt::format("signal {}", signal);
    }
}

Diagnosis diagnose_job(const JobEvidence& job) {
    Diagnosis d;
    d.kind = job.kind;
    std::vector<LogFinding> found(job.replicas.size());
    for (size_t i = 0; i < job.replicas.size(); ++i) {
        d.timeline.push_back(replica_end(job.replicas[i], found[i]));
    }
    std::stable_sort(d.timeline.begin(), d.timeline.end(), earlier);
    for (ReplicaEnd& end : d.timeline) {
        end.detail = clip(end.detail, k_max_detail);  // before the why quotes it
    }
    if (job.phase == "Succeeded") {
        d.verdict = "succeeded";
        d.why = "the job succeeded";
        return d;
    }
    if (job.reason == "DeadlineExceeded") {
        d.verdict = "failed";
        d.cause = Cause::Deadline;
        d.why = fmt::format("{}: {}", cause_title(d.cause), job.message);
    } else if (job.queue_state == "evicted") {
        d.verdict = job.phase == "Failed" ? "failed" : "pending";
        d.cause = Cause::QueueEvicted;
        d.why = fmt::format("{}: {}", cause_title(d.cause), job.queue_message);
    } else {
        explain_failure(d, job, found);
    }
    explain_quota(d, job);  // each of these two only where nothing above explained it
    explain_pending(d);
    if (d.verdict.empty() && job.queue_state == "pending") {
        d.verdict = "pending";
        d.cause = Cause::QueueWaiting;
        d.why = fmt::format("{}: {}", cause_title(d.cause), job.queue_message);
    }
    if (d.verdict.empty() && job.phase == "Suspended") {
        d.verdict = "suspended";
        d.why = "the job is suspended: kftrain resume starts it again";
    }
    if (d.verdict.empty() && job.phase == "Failed") {
        d.verdict = "failed";
        d.cause = Cause::Unknown;
        d.why = fmt::format("the job failed ({}): {}", job.reason, job.message);
    }
    if (d.verdict.empty() && job.idle_seconds && *job.idle_seconds >= job.stuck_after_seconds) {
        explain_stuck(d, job);
    }
    if (job.phase == "Running" || job.phase == "Restarting") {
        d.straggler = find_straggler(job.rank_step_s);
    }
    if (d.verdict.empty()) {
        d.verdict = "running";
        d.why = d.straggler ? "no failure; a straggler holds the other ranks back: " +
                                  describe_straggler(*d.straggler)
                            : "no problem found";
    }
    explain_memory(d, job);
    d.hint = hint_of(d);
    clip_quotes(d);
    return d;
}

}  // namespace kftrain::diagnose
