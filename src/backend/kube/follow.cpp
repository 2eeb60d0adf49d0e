#include "backend/kube/follow.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "backend/kube/kubectl_errors.h"
#include "backend/kube/logs.h"
#include "backend/kube/status/pods.h"
#include "job/exit_codes.h"

namespace kftrain::backend::kube {
namespace {

// Looks at the job after it ended before the streams still open are stopped: a pod whose
// container outlives the job (a Worker when the Master's success ended it and
// cleanPodPolicy is None) would otherwise keep `logs -f` open for as long as it runs.
constexpr int k_looks_after_end = 5;

// What following knows about one pod.
struct PodStream {
    bool streaming = false;
    int streamed_restarts = -1;  // restart count of the container last followed
    int seen_restarts = 0;       // the highest restart count seen
    bool announced = false;      // "waiting for it to start" was printed
    bool failed = false;
    std::thread thread;
};

// Follows the logs of a job's pods, one thread per open stream.
class Follower {
  public:
    Follower(KubectlRunner& kubectl, std::string job, const job::LogOptions& options,
             const std::vector<std::string>& namespace_args, const job::LogSink& sink)
        : m_kubectl(kubectl),
          m_job(std::move(job)),
          m_options(options),
          m_namespace_args(namespace_args),
          m_sink(sink) {}

    ~Follower() { join_all(); }

    // Look at the job and its pods until it ends and every stream closed (or, a few looks
    // after it ended, was stopped).
    util::Status run(const SnapshotSource& snapshot) {
        bool seen = false;
        int looks_after_end = 0;
        while (true) {
            auto snap = snapshot();
            if (!snap) {
                if (seen && snap.error_code(0) == k_exit_not_found) {
                    break;  // deleted while we followed it
                }
                join_all();
                return snap.error_value();
            }
            seen = true;
            update(*snap);
            bool ended = job::is_finished(snap->phase) || snap->phase == job::JobPhase::Suspended;
            if (ended && streaming_count() == 0) {
                break;
            }
            if (ended && ++looks_after_end > k_looks_after_end) {
                m_stop = true;  // the streams' kubectl are killed; each says so
                break;
            }
            std::this_thread::sleep_for(m_options.poll_interval);
        }
        join_all();
        return failures();
    }

  private:
    void update(const JobSnapshot& snap) {
        const size_t matching = static_cast<size_t>(std::count_if(
            snap.replicas.begin(), snap.replicas.end(),
            [this](const auto& r) { return job::replica_matches(r, m_options.replica); }));
        const bool many = matching > job::k_many_replicas && !m_options.all;
        if (many && !m_told_many) {
            m_told_many = true;
            emit({m_job, job::following_many_note(matching, snap.lead), true});
        }
        for (const auto& replica : snap.replicas) {
            if (!job::replica_matches(replica, m_options.replica)) {
                continue;
            }
            std::lock_guard<std::mutex> lock(m_mutex);
            // Among many, a replica is followed once it is the lead, fails or restarts.
            if (many && !job::followed_among_many(replica, snap.lead) &&
                m_pods.count(replica.pod) == 0) {
                continue;
            }
            PodStream& pod = m_pods[replica.pod];
            pod.seen_restarts = std::max(pod.seen_restarts, replica.restarts);
            if (pod.streaming) {
                continue;
            }
            if (has_started(replica) && pod.seen_restarts > pod.streamed_restarts) {
                if (pod.thread.joinable()) {
                    pod.thread.join();
                }
                pod.streaming = true;
                pod.streamed_restarts = pod.seen_restarts;
                pod.thread = std::thread([this, replica] { stream(replica); });
            } else if (!has_started(replica) && !pod.announced) {
                pod.announced = true;
                std::string why = replica.reason.empty() ? replica.state : replica.reason;
                emit({replica.name, fmt::format("waiting for it to start ({})", why), true});
            }
        }
    }

    void stream(const job::ReplicaStatus& replica) {
        job::LogOptions options = m_options;
        options.follow = true;
        auto result = m_kubectl.stream(
            log_args(replica, options, m_namespace_args),
            [&](const std::string& line) {
                emit({replica.name, line, false});
            },
            &m_stop);
        std::string failure;
        if (result && result->cancelled) {
            emit({replica.name, "still running after the job ended; stopped following it", true});
        } else if (!result) {
            failure = result.error();
        } else if (!result->ok()) {
            failure = explain_log_error(result->err, "following the log of " + replica.pod);
        }
        if (!failure.empty()) {
            emit({replica.name, failure, true});
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        PodStream& pod = m_pods[replica.pod];
        pod.streaming = false;
        pod.failed = pod.failed || !failure.empty();
    }

    void emit(const job::LogLine& line) {
        std::lock_guard<std::mutex> lock(m_sink_mutex);
        m_sink(line);
    }

    size_t streaming_count() {
        std::lock_guard<std::mutex> lock(m_mutex);
        size_t count = 0;
        for (const auto& [name, pod] : m_pods) {
            count += pod.streaming ? 1 : 0;
        }
        return count;
    }

    util::Status failures() {
        size_t failed = 0;
        for (const auto& [name, pod] : m_pods) {
            failed += pod.failed ? 1 : 0;
        }
        if (failed == 0) {
            return util::ok_status();
        }
        return util::error(
            fmt::format("could not follow the logs of {} of {} replicas", failed, m_pods.size()),
            k_exit_cluster);
    }

    void join_all() {
        for (auto& [name, pod] : m_pods) {
            if (pod.thread.joinable()) {
                pod.thread.join();
            }
        }
    }

    KubectlRunner& m_kubectl;
    std::string m_job;
    job::LogOptions m_options;
    std::vector<std::string> m_namespace_args;
    const job::LogSink& m_sink;
    std::mutex m_mutex;       // guards m_pods
    std::mutex m_sink_mutex;  // one line at a time
    std::map<std::string, PodStream> m_pods;
    std::atomic<bool> m_stop{false};  // set: every open stream is stopped
    bool m_told_many = false;         // the notice of following only some was printed
};

}  // namespace

util::Status follow_logs(KubectlRunner& kubectl, const std::string& job,
                         const SnapshotSource& snapshot, const job::LogOptions& options,
                         const std::vector<std::string>& namespace_args, const job::LogSink& sink) {
    Follower follower(kubectl, job, options, namespace_args, sink);
    return follower.run(snapshot);
}

}  // namespace kftrain::backend::kube
