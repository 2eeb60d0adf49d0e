#include "backend/kube/kueue/kueue.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/kueue/workload.h"
#include "job/exit_codes.h"
#include "manifest/render/template_values.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

constexpr const char* k_install_hint =
    "install Kueue (https://kueue.sigs.k8s.io/docs/installation/) and a LocalQueue, or submit "
    "without a queue";

// The visibility API versions tried for positions, newest first (Kueue v0.19 serves v1beta2).
constexpr const char* k_visibility_versions[] = {"v1beta2", "v1beta1"};

// Run kubectl with args in namespace ns (--namespace before any "--"), or in the queries'
// namespace when ns is empty.
util::Result<KubectlResult> call_in(KubeQueries& queries, std::vector<std::string> args,
                                    const std::string& ns) {
    if (ns.empty()) {
        return queries.call(args);
    }
    args.insert(std::find(args.begin(), args.end(), "--"), {"--namespace", ns});
    return queries.call(args, false);
}

// Return the ClusterQueue behind a LocalQueue, or "" when it cannot be read.
std::string cluster_queue_of(KubeQueries& queries, const std::string& ns,
                             const std::string& queue) {
    auto result = call_in(queries, {"get", k_local_queue_resource, "-o", "json", "--", queue}, ns);
    if (!result || !result->ok()) {
        return "";
    }
    auto parsed = parse_json_object(result->out);
    return parsed ? local_queue_from(*parsed).cluster_queue : "";
}

// Return the visibility API's pending workloads of a LocalQueue, from the newest version the
// cluster serves; nothing when none answers. Only a version the cluster refuses is followed by
// the next: a call that failed (past its deadline) is not tried again as another version.
std::optional<json> pending_workloads(KubeQueries& queries, const std::string& ns,
                                      const std::string& queue) {
    for (const char* version : k_visibility_versions) {
        auto result =
            queries.call({"get", "--raw", pending_workloads_path(version, ns, queue)}, false);
        if (!result) {
            return std::nullopt;
        }
        if (result->ok()) {
            auto parsed = parse_json_object(result->out);
            return parsed ? std::optional<json>(*parsed) : std::nullopt;
        }
    }
    return std::nullopt;
}

// Set the Workload's positions from the visibility API, where the cluster serves it.
void add_positions(KubeQueries& queries, const std::string& ns, job::QueueStatus& status) {
    if (auto summary = pending_workloads(queries, ns, status.local_queue)) {
        apply_positions(status, *summary);
    }
}

// Return the Workloads in the job's namespace, those labelled with its uid where it has one.
util::Result<KubectlResult> read_workloads(KubeQueries& queries, const std::string& ns,
                                           const std::string& uid) {
    std::vector<std::string> args = {"get", k_workload_resource, "-o", "json"};
    if (!uid.empty()) {
        args.insert(args.end(), {"-l", "kueue.x-k8s.io/job-uid=" + uid});
    }
    return call_in(queries, args, ns);
}

}  // namespace

util::Result<std::string> check_local_queue(KubeQueries& queries, const std::string& ns,
                                            const std::string& queue, const std::string& where) {
    auto result = call_in(queries, {"get", k_local_queue_resource, "-o", "json", "--", queue}, ns);
    if (!result) {
        return result.error_value();
    }
    if (result->ok()) {
        auto parsed = parse_json_object(result->out);
        return parsed ? local_queue_from(*parsed).cluster_queue : std::string();
    }
    switch (classify_kubectl_error(result->err)) {
        case KubectlFailure::CrdMissing:
            return util::error(fmt::format("{}: Kueue is not installed on this cluster, so no "
                                           "job can wait in LocalQueue {} (hint: {})",
                                           where, queue, k_install_hint),
                               k_exit_cluster);
        case KubectlFailure::NotFound:
            return util::error(fmt::format("{}: no LocalQueue {} in namespace {} (hint: "
                                           "'kftrain queues -n {}' lists its queues)",
                                           where, queue, ns, ns),
                               k_exit_not_found);
        default:
            return kubectl_failure(*result, "checking LocalQueue " + queue);
    }
}

util::Result<std::string> workload_of(KubeQueries& queries, const json& job) {
    const json& metadata = member(job, "metadata");
    if (string_at(member(metadata, "labels"), manifest::k_queue_label).empty()) {
        return std::string();
    }
    auto result =
        read_workloads(queries, string_at(metadata, "namespace"), string_at(metadata, "uid"));
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        return kubectl_failure(*result, "reading the job's Kueue Workload");
    }
    auto parsed = parse_json_object(result->out);
    if (!parsed) {
        return parsed.error_value();
    }
    const json* workload = find_workload(*parsed, string_at(job, "kind"),
                                         string_at(metadata, "name"), string_at(metadata, "uid"));
    return workload == nullptr ? std::string() : string_at(member(*workload, "metadata"), "name");
}

std::optional<job::QueueStatus> read_queue_status(KubeQueries& queries, const json& job) {
    const json& metadata = member(job, "metadata");
    const json& labels = member(metadata, "labels");
    const std::string queue = string_at(labels, manifest::k_queue_label);
    if (queue.empty()) {
        return std::nullopt;
    }
    const std::string ns = string_at(metadata, "namespace");
    job::QueueStatus status;
    auto result = read_workloads(queries, ns, string_at(metadata, "uid"));
    if (!result || !result->ok()) {
        status.message = "Kueue's Workload cannot be read: " +
                         (result ? explain_kubectl_error(result->err, "kubectl") : result.error());
    } else if (auto parsed = parse_json_object(result->out); parsed) {
        const json* workload =
            find_workload(*parsed, string_at(job, "kind"), string_at(metadata, "name"),
                          string_at(metadata, "uid"));
        if (workload != nullptr) {
            status = interpret_workload(*workload);
        }
    }
    if (status.local_queue.empty()) {
        status.local_queue = queue;
    }
    if (status.priority_class.empty()) {
        status.priority_class = string_at(labels, manifest::k_queue_priority_label);
    }
    const bool waiting =
        status.state == job::QueueState::Pending || status.state == job::QueueState::QuotaReserved;
    if (waiting && status.cluster_queue.empty()) {
        status.cluster_queue = cluster_queue_of(queries, ns, status.local_queue);
    }
    if (status.state == job::QueueState::Pending && !status.workload.empty()) {
        add_positions(queries, ns, status);
    }
    return status;
}

util::Result<std::vector<job::QueueEntry>> list_queue(KubeQueries& queries,
                                                      const std::string& queue) {
    auto result = queries.call({"get", k_workload_resource, "-o", "json"});
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        if (classify_kubectl_error(result->err) == KubectlFailure::CrdMissing) {
            return util::error(fmt::format("--queue: Kueue is not installed on this cluster, so "
                                           "no job waits in LocalQueue {} (hint: {})",
                                           queue, k_install_hint),
                               k_exit_cluster);
        }
        return kubectl_failure(*result, "listing Kueue's Workloads");
    }
    auto workloads = parse_json_object(result->out);
    if (!workloads) {
        return workloads.error_value();
    }
    // The namespace for the visibility API: the Workloads' (the queries' may be the context's).
    std::string ns;
    const json& items = member(*workloads, "items");
    if (items.is_array() && !items.empty()) {
        ns = string_at(member(items[0], "metadata"), "namespace");
    }
    json summary;
    if (!ns.empty()) {
        summary = pending_workloads(queries, ns, queue).value_or(json());
    }
    return queue_entries(*workloads, summary, queue);
}

util::Result<std::vector<job::LocalQueueInfo>> list_local_queues(KubeQueries& queries) {
    auto result = queries.call({"get", k_local_queue_resource, "-o", "json"});
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        if (classify_kubectl_error(result->err) == KubectlFailure::CrdMissing) {
            return util::error(explain_kubectl_error(result->err,
                                                     "listing LocalQueues: Kueue is not "
                                                     "installed on this cluster",
                                                     "install Kueue "
                                                     "(https://kueue.sigs.k8s.io/docs/"
                                                     "installation/)"),
                               k_exit_cluster);
        }
        return kubectl_failure(*result, "listing LocalQueues");
    }
    auto parsed = parse_json_object(result->out);
    if (!parsed) {
        return parsed.error_value();
    }
    return local_queues_from(*parsed);
}

}  // namespace kftrain::backend::kube
