#include "backend/kube/logs.h"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
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

}  // namespace

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
    return args;
}

util::Status fetch_logs(KubectlRunner& kubectl, const std::vector<job::ReplicaStatus>& replicas,
                        const job::LogOptions& options,
                        const std::vector<std::string>& namespace_args, const job::LogSink& sink,
                        size_t parallelism) {
    std::vector<ReplicaLog> logs(replicas.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < replicas.size(); i = next++) {
            bool readable = has_started(replicas[i]) || options.previous;
            logs[i] =
                readable ? read_one(kubectl, replicas[i], options, namespace_args) : ReplicaLog{};
        }
    };
    std::vector<std::thread> threads;
    for (size_t t = 0; t < std::min(parallelism, replicas.size()); ++t) {
        threads.emplace_back(work);
    }
    for (auto& thread : threads) {
        thread.join();
    }
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
            sink({r.name, line, false});
        }
    }
    return failure_status(failed, replicas.size());
}

}  // namespace kftrain::backend::kube
