#include "backend/kube/usage/job_usage.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <map>
#include <set>

#include "backend/kube/doctor/cluster_reads.h"
#include "backend/kube/job_reader.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/logs.h"
#include "backend/kube/status/pods.h"
#include "usage/pod_metrics.h"
#include "usage/pod_resources.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

// A job's pods: as replicas, and what each asks (by pod name).
struct JobPods {
    std::vector<job::ReplicaStatus> replicas;
    std::map<std::string, usage::PodResources> resources;
    std::string selector;  // the selector that found them
};

util::Result<JobPods> read_job_pods(KubeQueries& queries, const std::string& job,
                                    const std::vector<std::string>& selectors) {
    for (const std::string& selector : selectors) {
        auto out = queries.run({"get", "pods", "-l", selector, "-o", "json"},
                               "listing the pods of " + job);
        if (!out) {
            return out.error_value();
        }
        auto replicas = parse_pods(*out, job);
        if (!replicas) {
            return replicas.error_value();
        }
        if (replicas->empty()) {
            continue;
        }
        JobPods pods{std::move(*replicas), {}, selector};
        const json parsed = util::parse_untrusted_json(*out);
        for (const json& pod : member(parsed, "items")) {
            pods.resources[string_at(member(pod, "metadata"), "name")] = usage::pod_resources(pod);
        }
        return pods;
    }
    return JobPods{};
}

job::ReplicaUsage asked_of(const job::ReplicaStatus& replica, const usage::PodResources& asks) {
    job::ReplicaUsage out;
    out.name = replica.name;
    out.pod = replica.pod;
    out.node = replica.node;
    out.state = replica.state;
    out.restarts = replica.restarts;
    out.cpu_request = usage::amount_of(asks.requests, "cpu");
    out.cpu_limit = usage::amount_of(asks.limits, "cpu");
    out.memory_request = usage::amount_of(asks.requests, "memory");
    out.memory_limit = usage::amount_of(asks.limits, "memory");
    out.gpus = usage::amount_of(asks.requests, usage::k_gpu_resource).value_or(0.0);
    return out;
}

bool measurable(const job::ReplicaStatus& replica) {
    return !replica.node.empty() && replica.state == "Running";
}

// What one source measured, and what it could not read.
struct Measured {
    usage::PodUsageMap pods;
    std::string source;
    std::vector<std::string> warnings;
    std::set<std::string> unread_nodes;  // nodes whose summary failed (warned once)
};

// What a failed call said: kubectl's words, or why it could not be run.
std::string call_failure(const Read& read) {
    if (!read) {
        return read.error();
    }
    return printable_line(util::trim(read->err.empty() ? read->out : read->err));
}

// The replicas a warning names: the first few, and how many more ("worker-0, worker-64, worker-128
// and 13 more").
std::string replica_list(const std::vector<std::string>& names) {
    constexpr size_t k_named = 3;
    if (names.size() <= k_named + 1) {
        return fmt::format("{}", fmt::join(names, ", "));
    }
    return fmt::format("{} and {} more", fmt::join(names.begin(), names.begin() + k_named, ", "),
                       names.size() - k_named);
}

char hex_digit(int value) {
    return "0123456789ABCDEF"[value & 15];
}

// The metrics API for the job's pods, one call; nullopt where the cluster does not serve it.
std::optional<Measured> from_metrics_api(KubeQueries& queries, const std::string& ns,
                                         const std::string& selector) {
    auto read = queries.call({"get", "--raw", pod_metrics_path(ns, selector)}, false);
    if (!read || !read->ok()) {
        return std::nullopt;
    }
    auto pods = usage::read_pod_metrics(read->out);
    if (!pods) {
        return std::nullopt;
    }
    return Measured{std::move(*pods), "metrics.k8s.io", {}, {}};
}

Measured from_summaries(KubeQueries& queries, const std::vector<job::ReplicaStatus>& replicas) {
    std::map<std::string, std::vector<std::string>> on_node;  // node -> its replicas
    for (const auto& replica : replicas) {
        if (measurable(replica)) {
            on_node[replica.node].push_back(replica.name);
        }
    }
    std::vector<std::string> nodes;
    for (const auto& [node, names] : on_node) {
        nodes.push_back(node);
    }
    std::vector<Read> reads(nodes.size(), util::error("not read"));
    for_each_parallel(nodes.size(), k_summary_parallelism, [&](size_t i) {
        reads[i] = queries.call({"get", "--raw", kubelet_summary_path(nodes[i])}, false);
    });
    Measured out{{}, "kubelet summary", {}, {}};
    for (size_t i = 0; i < nodes.size(); ++i) {
        auto pods = reads[i] && reads[i]->ok()
                        ? usage::read_kubelet_summary(reads[i]->out)
                        : util::Result<usage::PodUsageMap>(util::error(call_failure(reads[i])));
        if (!pods) {
            out.unread_nodes.insert(nodes[i]);
            out.warnings.push_back(fmt::format(
                "node {}: could not read its kubelet summary{} ({} shown as \"-\"): {}", nodes[i],
                read_forbidden(reads[i]) ? ", RBAC forbids get on nodes/proxy" : "",
                replica_list(on_node[nodes[i]]), pods.error()));
            continue;
        }
        out.pods.insert(pods->begin(), pods->end());
    }
    return out;
}

// The warning for a replica without figures, or "" when it has them or its node's summary was
// already named.
std::string unknown_warning(const job::ReplicaUsage& replica, const Measured& measured) {
    if (replica.node.empty()) {
        return fmt::format("{}: not on a node yet ({})", replica.name, replica.state);
    }
    if (replica.state != "Running") {
        return fmt::format("{}: its pod is {}: nothing runs to measure", replica.name,
                           replica.state);
    }
    if (measured.unread_nodes.count(replica.node) > 0) {
        return "";
    }
    if (!replica.cpu_cores || !replica.memory_bytes) {
        const std::string from = measured.source == "metrics.k8s.io"
                                     ? "metrics.k8s.io"
                                     : "the kubelet summary of " + replica.node;
        return fmt::format("{}: {} has no {} figure for pod {} yet", replica.name, from,
                           replica.cpu_cores ? "memory" : "CPU", replica.pod);
    }
    return "";
}

std::string job_namespace(const FoundJob& found) {
    return string_at(member(found.object, "metadata"), "namespace");
}

}  // namespace

std::string pod_metrics_path(const std::string& ns, const std::string& selector) {
    std::string encoded;
    for (unsigned char c : selector) {
        if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
            encoded += static_cast<char>(c);
        } else {
            encoded += '%';
            encoded += hex_digit(c >> 4);
            encoded += hex_digit(c);
        }
    }
    return fmt::format("/apis/metrics.k8s.io/v1beta1/namespaces/{}/pods?labelSelector={}", ns,
                       encoded);
}

std::string kubelet_summary_path(const std::string& node) {
    return "/api/v1/nodes/" + node + "/proxy/stats/summary";
}

util::Result<job::JobUsage> read_job_usage(KubeQueries& queries, const FoundJob& found) {
    const JobReader& reader = job_reader(found.kind);
    const job::JobStatus status = reader.status_from(found.object);
    auto pods = read_job_pods(queries, status.name, reader.pod_selectors(found.object));
    if (!pods) {
        return pods.error_value();
    }
    job::JobUsage out{status.name, job_namespace(found), status.kind, "", {}, {}};
    bool any_running = false;
    for (const auto& replica : pods->replicas) {
        any_running = any_running || measurable(replica);
    }
    std::optional<Measured> measured;
    if (any_running && !out.namespace_.empty()) {
        measured = from_metrics_api(queries, out.namespace_, pods->selector);
    }
    if (!measured) {
        measured = from_summaries(queries, pods->replicas);
    }
    out.source = any_running ? measured->source : "";
    out.warnings = measured->warnings;
    for (const auto& replica : pods->replicas) {
        job::ReplicaUsage row = asked_of(replica, pods->resources[replica.pod]);
        if (measurable(replica)) {
            auto it = measured->pods.find({out.namespace_, replica.pod});
            if (it != measured->pods.end()) {
                row.cpu_cores = it->second.cpu_cores;
                row.memory_bytes = it->second.memory_bytes;
            }
        }
        if (std::string warning = unknown_warning(row, *measured); !warning.empty()) {
            out.warnings.push_back(warning);
        }
        out.replicas.push_back(std::move(row));
    }
    if (pods->replicas.empty()) {
        out.warnings.push_back(fmt::format("{} has no pods yet", status.name));
    }
    return out;
}

}  // namespace kftrain::backend::kube
