#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "job/status.h"

namespace kftrain::backend::kube {

// Pods one `kubectl logs -l` reads at most: one process reads them one after another, so a
// job of a thousand replicas is read by a few processes side by side.
constexpr size_t k_pods_per_batch = 256;
// Replicas of one type read one by one below this (a process each either way).
constexpr size_t k_min_batch = 3;

// The replicas one `kubectl logs -l SELECTOR --prefix` reads: the job's selector narrowed to
// their type and indices, so that it picks no pod that has not started (kubectl stops at the
// first pod whose log it cannot read).
struct LogBatch {
    std::string selector;
    std::string container;
    std::vector<size_t> members;  // positions in the replicas planned
};

// How a set of replicas' logs are read: in batches, and the rest one pod each.
struct LogReadPlan {
    std::vector<LogBatch> batches;
    std::vector<size_t> singles;
};

// Plan the reads of replicas[i] for each i in wanted: a batch per type (at most
// k_pods_per_batch pods each) when its pods carry type and index labels and the job's pods were
// found by job_selector, else one read per pod.
LogReadPlan plan_log_reads(const std::vector<job::ReplicaStatus>& replicas,
                           const std::vector<size_t>& wanted, const std::string& job_selector);

// One line of `kubectl logs --prefix`: "[pod/NAME/CONTAINER] text".
struct PrefixedLine {
    std::string_view pod;
    std::string_view container;
    std::string_view text;
};

// Split a prefixed line; nothing when it has no such prefix.
std::optional<PrefixedLine> split_prefixed(std::string_view line);

}  // namespace kftrain::backend::kube
