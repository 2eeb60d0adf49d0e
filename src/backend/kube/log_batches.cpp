#include "backend/kube/log_batches.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace kftrain::backend::kube {
namespace {

std::string container_of(const job::ReplicaStatus& replica) {
    return replica.container.empty() ? "pytorch" : replica.container;
}

// The replicas that one selector can narrow to: same container, type label and index key.
using GroupKey = std::tuple<std::string, std::string, std::string, std::string>;

std::string batch_selector(const std::string& job_selector, const job::PodLabels& labels,
                           const std::vector<std::string>& indices) {
    return fmt::format("{},{}={},{} in ({})", job_selector, labels.type_key, labels.type,
                       labels.index_key, fmt::join(indices, ","));
}

}  // namespace

LogReadPlan plan_log_reads(const std::vector<job::ReplicaStatus>& replicas,
                           const std::vector<size_t>& wanted, const std::string& job_selector) {
    LogReadPlan plan;
    std::map<GroupKey, std::vector<size_t>> groups;
    std::vector<GroupKey> order;  // the groups as their first replica comes
    for (size_t i : wanted) {
        const job::PodLabels& labels = replicas[i].labels;
        if (job_selector.empty() || labels.type_key.empty() || labels.index_key.empty()) {
            plan.singles.push_back(i);
            continue;
        }
        GroupKey key{container_of(replicas[i]), labels.type_key, labels.type, labels.index_key};
        auto [group, added] = groups.try_emplace(key);
        if (added) {
            order.push_back(key);
        }
        group->second.push_back(i);
    }
    for (const auto& key : order) {
        const std::vector<size_t>& members = groups[key];
        if (members.size() < k_min_batch) {
            plan.singles.insert(plan.singles.end(), members.begin(), members.end());
            continue;
        }
        for (size_t start = 0; start < members.size(); start += k_pods_per_batch) {
            LogBatch batch;
            batch.container = std::get<0>(key);
            std::vector<std::string> indices;
            for (size_t j = start; j < std::min(members.size(), start + k_pods_per_batch); ++j) {
                batch.members.push_back(members[j]);
                indices.push_back(replicas[members[j]].labels.index);
            }
            batch.selector = batch_selector(job_selector, replicas[members[start]].labels, indices);
            plan.batches.push_back(std::move(batch));
        }
    }
    return plan;
}

std::optional<PrefixedLine> split_prefixed(std::string_view line) {
    constexpr std::string_view k_start = "[pod/";
    if (line.substr(0, k_start.size()) != k_start) {
        return std::nullopt;
    }
    size_t slash = line.find('/', k_start.size());
    size_t close = line.find("] ", k_start.size());
    if (slash == std::string_view::npos || close == std::string_view::npos || slash > close) {
        return std::nullopt;
    }
    PrefixedLine parts;
    parts.pod = line.substr(k_start.size(), slash - k_start.size());
    parts.container = line.substr(slash + 1, close - slash - 1);
    parts.text = line.substr(close + 2);
    return parts;
}

}  // namespace kftrain::backend::kube
