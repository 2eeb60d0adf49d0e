#include "backend/kube/kueue/cluster_queues.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl_errors.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using nlohmann::json;

constexpr size_t k_max_items = 64;  // of each list of a ClusterQueue, as its CRD allows

// The first k_max_items of an array member, or none.
std::vector<json> items_of(const json& object, const char* key) {
    const json& array = member(object, key);
    if (!array.is_array()) {
        return {};
    }
    return {array.begin(), array.begin() + static_cast<long>(std::min(array.size(), k_max_items))};
}

// A quantity as written: a string, or a number for the int-or-string fields.
std::string quantity_text(const json& value) {
    if (value.is_string()) {
        return util::escape_controls(value.get<std::string>().substr(0, 64));
    }
    if (value.is_number_integer() || value.is_number_float()) {
        return value.dump();
    }
    return "";
}

}  // namespace

std::vector<job::QueueQuota> cluster_queue_quota(const nlohmann::json& cluster_queue) {
    const json& status = member(cluster_queue, "status");
    auto used_flavors = items_of(status, "flavorsReservation");
    if (used_flavors.empty()) {
        used_flavors = items_of(status, "flavorsUsage");
    }
    std::map<std::pair<std::string, std::string>, std::string> used;
    for (const json& flavor : used_flavors) {
        for (const json& r : items_of(flavor, "resources")) {
            used[{string_at(flavor, "name"), string_at(r, "name")}] =
                quantity_text(member(r, "total"));
        }
    }
    std::vector<job::QueueQuota> quota;
    for (const json& group : items_of(member(cluster_queue, "spec"), "resourceGroups")) {
        for (const json& flavor : items_of(group, "flavors")) {
            for (const json& r : items_of(flavor, "resources")) {
                job::QueueQuota q;
                q.flavor = util::escape_controls(string_at(flavor, "name"));
                q.resource = util::escape_controls(string_at(r, "name"));
                q.nominal = quantity_text(member(r, "nominalQuota"));
                q.borrowing_limit = quantity_text(member(r, "borrowingLimit"));
                auto found = used.find({string_at(flavor, "name"), string_at(r, "name")});
                q.used = found == used.end() || found->second.empty() ? "0" : found->second;
                quota.push_back(std::move(q));
            }
        }
    }
    return quota;
}

void add_cluster_queue_quota(KubeQueries& queries, std::vector<job::LocalQueueInfo>& queues,
                             std::vector<std::string>& warnings) {
    if (queues.empty()) {
        return;
    }
    auto result = queries.call({"get", k_cluster_queue_resource, "-o", "json"}, false);
    std::string why;
    json parsed;
    if (!result) {
        why = result.error();
    } else if (!result->ok()) {
        why = explain_kubectl_error(result->err, "listing ClusterQueues",
                                    "ClusterQueues are cluster-scoped: a cluster admin can grant "
                                    "list on clusterqueues.kueue.x-k8s.io");
    } else if (auto list = parse_json_object(result->out); !list) {
        why = list.error();
    } else {
        parsed = std::move(*list);
    }
    if (!why.empty()) {
        warnings.push_back(fmt::format(
            "the ClusterQueues' quota and usage could not be read, so they show as -: {}", why));
        return;
    }
    std::map<std::string, std::vector<job::QueueQuota>> by_name;
    for (const json& item : items_of(parsed, "items")) {
        by_name[string_at(member(item, "metadata"), "name")] = cluster_queue_quota(item);
    }
    for (job::LocalQueueInfo& queue : queues) {
        auto found = by_name.find(queue.cluster_queue);
        if (found != by_name.end()) {
            queue.quota = found->second;
        }
    }
}

}  // namespace kftrain::backend::kube
