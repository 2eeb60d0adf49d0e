#include "diagnose/log_signals.h"

#include <cctype>

#include "progress/progress_line.h"
#include "wire/progress_events.h"

namespace kftrain::diagnose {
namespace {

// Words in a line that name a cause, most specific first.
struct Pattern {
    Cause cause;
    const char* text;
};
const Pattern k_patterns[] = {
    {Cause::OutOfMemory, "CUDA out of memory"},
    {Cause::OutOfMemory, "OutOfMemoryError"},
    {Cause::OutOfMemory, "MemoryError"},
    {Cause::OutOfMemory, "std::bad_alloc"},
    {Cause::OutOfMemory, "Cannot allocate memory"},
    {Cause::OutOfMemory, "out of memory"},  // CUDA error: out of memory
    {Cause::Divergence, "training diverged"},
    {Cause::Divergence, "loss is not finite"},
    // Before NCCL's and the rendezvous' own errors, which quote them when a peer died first
    // ("NCCL error: remote process exited or there was a network error").
    {Cause::PeerGone, "Connection reset by peer"},
    {Cause::PeerGone, "Connection closed by peer"},
    {Cause::PeerGone, "Broken pipe"},
    {Cause::PeerGone, "remote process exited"},
    {Cause::Nccl, "NCCL error"},
    {Cause::Nccl, "ncclSystemError"},
    {Cause::Nccl, "ncclInternalError"},
    {Cause::Nccl, "ncclUnhandledCudaError"},
    {Cause::Nccl, "ncclRemoteError"},
    {Cause::Nccl, "Watchdog caught collective operation timeout"},
    {Cause::Rendezvous, "client socket has timed out"},
    {Cause::Rendezvous, "Timed out initializing process group"},
    {Cause::Rendezvous, "DistStoreError"},
    {Cause::Rendezvous, "TCPStore"},
    {Cause::Rendezvous, "connect() timed out"},
    {Cause::Rendezvous, "Socket Timeout"},
    {Cause::Rendezvous, "RendezvousTimeoutError"},
    {Cause::Rendezvous, "cannot connect to"},  // kftrain-trainer's rendezvous error
};

Cause line_cause(const std::string& text) {
    for (const Pattern& p : k_patterns) {
        if (text.find(p.text) != std::string::npos) {
            return p.cause;
        }
    }
    return Cause::None;
}

// The message of a progress line's error event (read by the one progress parser), or nullopt
// when the line is not one.
std::optional<std::string> error_event(const std::string& text) {
    auto progress = progress::parse_progress_line(text);
    if (!progress || progress->event != wire::event::k_error) {
        return std::nullopt;
    }
    return progress->message.empty() ? std::string("error") : progress->message;
}

// A Python exception's last line: "ValueError: ...", "torch.cuda.OutOfMemoryError: ...": a
// dotted name ending in Error, Exception, Exit, Interrupt or Timeout, then nothing or a
// non-name character. A scan, not a regex: a line may be a megabyte long.
bool is_exception_line(const std::string& text) {
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) {
        return false;
    }
    size_t end = 0;
    while (end < text.size() && (word(text[end]) || text[end] == '.')) {
        ++end;
    }
    const std::string name = text.substr(0, end);
    for (const char* suffix : {"Error", "Exception", "Exit", "Interrupt", "Timeout"}) {
        const std::string tail = suffix;
        if (name.size() >= tail.size() &&
            name.compare(name.size() - tail.size(), tail.size(), tail) == 0) {
            return true;
        }
    }
    return false;
}

// The traceback that ends last in lines: from its "Traceback" line to its exception line.
std::optional<LogFinding> last_traceback(const std::vector<LogEvidence>& lines) {
    constexpr size_t k_kept = 8;  // the traceback's first line and its last lines
    for (size_t end = lines.size(); end-- > 0;) {
        if (!is_exception_line(lines[end].text)) {
            continue;
        }
        for (size_t start = end + 1; start-- > 0;) {
            if (lines[start].text.rfind("Traceback (most recent call last)", 0) != 0) {
                continue;
            }
            LogFinding finding;
            finding.detail = lines[end].text;
            Cause specific = line_cause(finding.detail);
            finding.cause = specific == Cause::None ? Cause::Exception : specific;
            finding.lines.push_back(lines[start]);
            size_t from = end + 1 - std::min(end - start, k_kept - 1);
            finding.lines.insert(finding.lines.end(), lines.begin() + from,
                                 lines.begin() + end + 1);
            return finding;
        }
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

const char* cause_id(Cause cause) {
    switch (cause) {
        case Cause::None:
            return "none";
        case Cause::OutOfMemory:
            return "out-of-memory";
        case Cause::Signal:
            return "signal";
        case Cause::Exception:
            return "exception";
        case Cause::PeerGone:
            return "peer-gone";
        case Cause::Rendezvous:
            return "rendezvous-timeout";
        case Cause::Nccl:
            return "nccl-error";
        case Cause::Divergence:
            return "divergence";
        case Cause::ImagePull:
            return "image-pull";
        case Cause::Unschedulable:
            return "unschedulable";
        case Cause::CrashLoop:
            return "crash-loop";
        case Cause::Deadline:
            return "deadline-exceeded";
        case Cause::Evicted:
            return "evicted";
        case Cause::Preempted:
            return "preempted";
        case Cause::QueueWaiting:
            return "queue-waiting";
        case Cause::QueueEvicted:
            return "queue-evicted";
        case Cause::Quota:
            return "quota-exceeded";
        case Cause::Stuck:
            return "stuck";
        case Cause::Unknown:
            return "unknown";
    }
    return "unknown";
}

const char* cause_title(Cause cause) {
    switch (cause) {
        case Cause::None:
            return "no problem found";
        case Cause::OutOfMemory:
            return "out of memory";
        case Cause::Signal:
            return "killed by a signal";
        case Cause::Exception:
            return "an exception in the program";
        case Cause::PeerGone:
            return "a peer went away";
        case Cause::Rendezvous:
            return "a rendezvous or store timeout";
        case Cause::Nccl:
            return "an NCCL error";
        case Cause::Divergence:
            return "training diverged";
        case Cause::ImagePull:
            return "the image cannot be pulled";
        case Cause::Unschedulable:
            return "no node can run the pod";
        case Cause::CrashLoop:
            return "the container keeps crashing";
        case Cause::Deadline:
            return "the active deadline ran out";
        case Cause::Evicted:
            return "the pod was evicted";
        case Cause::Preempted:
            return "preempted by a higher-priority workload";
        case Cause::QueueWaiting:
            return "waiting in its Kueue queue";
        case Cause::QueueEvicted:
            return "evicted by Kueue";
        case Cause::Quota:
            return "a ResourceQuota refused pods";
        case Cause::Stuck:
            return "no progress";
        case Cause::Unknown:
            return "an unrecognized failure";
    }
    return "an unrecognized failure";
}

const char* cause_hint(Cause cause) {
    switch (cause) {
        case Cause::None:
            return "";
        case Cause::OutOfMemory:
            return "give the replicas more memory (resources.memory), or lower the batch size";
        case Cause::Signal:
            return "something outside the program stopped it: an OOM killer, a person, or a "
                   "node going away; look at the node and its events";
        case Cause::Exception:
            return "fix the error the program raised; its traceback is below";
        case Cause::PeerGone:
            return "another replica ended first; this one only lost its connection to it";
        case Cause::Rendezvous:
            return "the workers never reached the master: check that the master started (its "
                   "last lines are below), and MASTER_ADDR and MASTER_PORT";
        case Cause::Nccl:
            return "run with NCCL_DEBUG=INFO; check the GPUs, the network between nodes and "
                   "that every rank runs the same collectives";
        case Cause::Divergence:
            return "lower the learning rate (trainer.lr), or clip gradients; the run stopped "
                   "without checkpointing the broken state";
        case Cause::ImagePull:
            return "check the image name and tag, and imagePullSecrets for a private registry";
        case Cause::Unschedulable:
            return "ask for less (resources), add nodes, or fix nodeSelector and tolerations";
        case Cause::CrashLoop:
            return "the container fails right after it starts: its previous log says why";
        case Cause::Deadline:
            return "raise runPolicy.activeDeadlineSeconds, or make the job shorter";
        case Cause::Evicted:
            return "the node ran short (memory or disk): request what the job uses";
        case Cause::Preempted:
            return "use a higher priority class, or a queue with guaranteed quota";
        case Cause::QueueWaiting:
            return "the queue has no free quota: see kftrain queues, or use another queue";
        case Cause::QueueEvicted:
            return "Kueue took its quota back; it is requeued";
        case Cause::Quota:
            return "ask for less (resources, replicas), wait for others' jobs in the namespace "
                   "to finish, or ask the namespace admin for more quota; kftrain doctor -f "
                   "JOB checks a job file against the quota before it is submitted";
        case Cause::Stuck:
            return "a hang in a collective or the data loader is likely: look at what each "
                   "replica printed last";
        case Cause::Unknown:
            return "read the first failure's last lines below";
    }
    return "";
}

LogFinding read_log(const std::vector<LogEvidence>& lines) {
    if (auto traceback = last_traceback(lines)) {
        return *traceback;
    }
    for (size_t i = lines.size(); i-- > 0;) {
        LogFinding finding;
        if (auto message = error_event(lines[i].text)) {
            Cause specific = line_cause(*message);
            finding.cause = specific == Cause::None ? Cause::Exception : specific;
            finding.detail = *message;
        } else if (Cause cause = line_cause(lines[i].text); cause != Cause::None) {
            finding.cause = cause;
            finding.detail = lines[i].text;
        } else if (lines[i].text.find("terminate called after throwing") != std::string::npos) {
            finding.cause = Cause::Exception;
            finding.detail = lines[i].text;
        } else {
            continue;
        }
        finding.lines.push_back(lines[i]);
        return finding;
    }
    return {};
}

}  // namespace kftrain::diagnose
