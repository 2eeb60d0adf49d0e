#include "backend/kube/logs.h"

#include <fmt/format.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "backend/kube/kubectl_errors.h"
#include "backend/kube/status/pods.h"
#include "job/exit_codes.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using util::split_lines;

// One replica's output, kept until it can be printed in replica order.
struct ReplicaLog {
    std::vector<std::string> lines;
    std::string failure;  // empty when the log was read
};

std::string first_line(const std::string& text) {
    for (const auto& line : split_lines(text)) {
        if (line.find_first_not_of(" \t\r") != std::string::npos) {
            return line.rfind("error: ", 0) == 0 ? line.substr(7) : line;
        }
    }
    return "kubectl failed with no message";
}

ReplicaLog read_one(KubectlRunner& kubectl, const job::ReplicaStatus& replica,
                    const job::LogOptions& options, const std::vector<std::string>& ns) {
    auto result = kubectl.run(log_args(replica, options, ns));
    if (!result) {
        return {{}, result.error()};
    }
    if (!result->ok()) {
        return {{}, explain_log_error(result->err, "reading the log of " + replica.pod)};
    }
    return {split_lines(result->out), ""};
}

// Read a batch into logs (its members' entries); return the members it printed nothing of
// when kubectl failed (stopped at a pod it could not read: those are read one by one).
std::vector<size_t> read_batch(KubectlRunner& kubectl, const LogBatch& batch,
                               const std::vector<job::ReplicaStatus>& replicas,
                               const job::LogOptions& options, const std::vector<std::string>& ns,
                               std::vector<ReplicaLog>& logs) {
    std::map<std::string_view, size_t> by_pod;
    for (size_t i : batch.members) {
        by_pod.emplace(replicas[i].pod, i);
    }
    auto result = kubectl.run(batch_log_args(batch, options, ns));
    std::optional<size_t> last;  // the pod read last, which a failure may have cut short
    if (result) {
        for (auto& line : split_lines(result->out)) {
            auto parts = split_prefixed(line);
            auto member = parts ? by_pod.find(parts->pod) : by_pod.end();
            if (member != by_pod.end() && parts->container == batch.container) {
                logs[member->second].lines.emplace_back(parts->text);
                last = member->second;
            }
        }
    }
    std::vector<size_t> unread;
    if (!result || !result->ok()) {
        for (size_t i : batch.members) {
            if (logs[i].lines.empty() || i == last) {
                logs[i] = {};
                unread.push_back(i);
            }
        }
    }
    return unread;
}

util::Status failure_status(size_t failed, size_t total) {
    if (failed == 0) {
        return util::ok_status();
    }
    return util::error(fmt::format("could not read the logs of {} of {} replicas", failed, total),
                       k_exit_cluster);
}

std::string waiting_text(const job::ReplicaStatus& r) {
    std::string why = r.reason.empty() ? r.state : r.state + ": " + r.reason;
    return fmt::format("has not started yet ({})", why);
}

// The kubelet answers a log it no longer has (the container removed, as a crash loop's dead
// containers are) with this text as the log itself, exit 0: what the program never printed.
bool is_log_gone(const std::string& line) {
    const size_t text = line.find(' ') == std::string::npos ? 0 : line.find(' ') + 1;
    constexpr std::string_view k_gone = "unable to retrieve container logs for ";
    return line.compare(0, k_gone.size(), k_gone) == 0 ||
           line.compare(text, k_gone.size(), k_gone) == 0;
}

}  // namespace

void for_each_parallel(size_t count, size_t parallelism, const std::function<void(size_t)>& work) {
    std::atomic<size_t> next{0};
    auto drain = [&] {
        for (size_t i = next++; i < count; i = next++) {
            work(i);
        }
    };
    std::vector<std::thread> threads;
    for (size_t t = 0; t < std::min(parallelism, count); ++t) {
        threads.emplace_back(drain);
    }
    for (auto& thread : threads) {
        thread.join();
    }
}

std::string explain_log_error(const std::string& stderr_text, const std::string& action) {
    switch (classify_kubectl_error(stderr_text)) {
        case KubectlFailure::Rejected:
        case KubectlFailure::NotFound:
        case KubectlFailure::Other:
            return action + ": " + first_line(stderr_text);
        default:
            return explain_kubectl_error(stderr_text, action);
    }
}

// The flags every read takes after its pods and container.
void append_read_flags(std::vector<std::string>& args, const job::LogOptions& options,
                       const std::vector<std::string>& namespace_args) {
    if (!options.since.empty()) {
        args.push_back("--since=" + options.since);
    }
    if (options.timestamps) {
        args.push_back("--timestamps");
    }
    if (options.previous) {
        args.push_back("-p");
    }
    args.insert(args.end(), namespace_args.begin(), namespace_args.end());
}

std::vector<std::string> log_args(const job::ReplicaStatus& replica, const job::LogOptions& options,
                                  const std::vector<std::string>& namespace_args) {
    std::vector<std::string> args = {"logs", replica.pod, "-c",
                                     replica.container.empty() ? "pytorch" : replica.container};
    if (options.follow) {
        args.push_back("-f");
    }
    if (options.tail) {
        args.push_back(fmt::format("--tail={}", *options.tail));
    }
    append_read_flags(args, options, namespace_args);
    return args;
}

std::vector<std::string> batch_log_args(const LogBatch& batch, const job::LogOptions& options,
                                        const std::vector<std::string>& namespace_args) {
    std::vector<std::string> args = {"logs",
                                     "-l",
                                     batch.selector,
                                     "--prefix",
                                     "-c",
                                     batch.container,
                                     fmt::format("--tail={}", options.tail.value_or(-1))};
    append_read_flags(args, options, namespace_args);
    return args;
}

util::Status fetch_logs(KubectlRunner& kubectl, const std::vector<job::ReplicaStatus>& replicas,
                        const std::string& job_selector, const job::LogOptions& options,
                        const std::vector<std::string>& namespace_args, const job::LogSink& sink,
                        size_t parallelism) {
    std::vector<size_t> readable;
    for (size_t i = 0; i < replicas.size(); ++i) {
        if (has_started(replicas[i]) || options.previous) {
            readable.push_back(i);
        }
    }
    const LogReadPlan plan = plan_log_reads(replicas, readable, job_selector);
    std::vector<ReplicaLog> logs(replicas.size());
    std::vector<size_t> retries;
    std::mutex retry_mutex;  // guards retries while the batches run
    const size_t tasks = plan.batches.size() + plan.singles.size();
    for_each_parallel(tasks, parallelism, [&](size_t task) {
        if (task >= plan.batches.size()) {
            size_t i = plan.singles[task - plan.batches.size()];
            logs[i] = read_one(kubectl, replicas[i], options, namespace_args);
            return;
        }
        const LogBatch& batch = plan.batches[task];
        std::vector<size_t> unread =
            read_batch(kubectl, batch, replicas, options, namespace_args, logs);
        std::lock_guard<std::mutex> lock(retry_mutex);
        retries.insert(retries.end(), unread.begin(), unread.end());
    });
    for_each_parallel(retries.size(), parallelism, [&](size_t task) {
        logs[retries[task]] = read_one(kubectl, replicas[retries[task]], options, namespace_args);
    });
    size_t failed = 0;
    for (size_t i = 0; i < replicas.size(); ++i) {
        const auto& r = replicas[i];
        if (!has_started(r) && !options.previous) {
            sink({r.name, waiting_text(r) + "; no logs yet", true});
        } else if (!logs[i].failure.empty()) {
            ++failed;
            sink({r.name, logs[i].failure, true});
        }
        for (const auto& line : logs[i].lines) {
            if (is_log_gone(line)) {
                sink({r.name, "its log is gone: the kubelet no longer keeps that container's",
                      true});
                continue;
            }
            sink({r.name, line, false});
        }
    }
    return failure_status(failed, replicas.size());
}

util::Result<std::vector<job::ReplicaStatus>> previous_attempts(
    const std::string& job, const std::vector<job::ReplicaStatus>& chosen,
    const std::string& wanted, const job::LogSink& sink) {
    std::vector<job::ReplicaStatus> restarted;
    for (const auto& replica : chosen) {
        if (replica.restarts > 0) {
            restarted.push_back(replica);
        } else {
            sink({replica.name, job::k_no_previous_attempt, true});
        }
    }
    if (restarted.empty()) {
        return util::error(job::no_restart_message(job, wanted), k_exit_not_found);
    }
    return restarted;
}

}  // namespace kftrain::backend::kube
