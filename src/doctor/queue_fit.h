#pragma once

// Whether a job fits a Kueue ClusterQueue: the job's total requests against each flavor's
// nominal quota, borrowing limit and what is reserved now. Pure: the ClusterQueue comes from
// the backend as kubectl prints it.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::doctor {

// The three answers, best first.
enum class QueueFitVerdict {
    FitsNow,    // reserved + job <= nominal + borrowing limit, in some flavor
    FitsLater,  // job <= nominal + borrowing limit, but the quota is in use: when others finish
    NeverFits,  // the job alone is over nominal + borrowing limit of every flavor, or the
                // ClusterQueue covers none of a resource it asks for
};

// Return the verdict's name: "fits now", "fits when others finish", "never fits".
const char* queue_fit_name(QueueFitVerdict verdict);

// One resource of the job against the flavor that suits it best.
struct QueueFitResource {
    std::string resource;  // cpu, memory, nvidia.com/gpu
    std::string flavor;    // "" when no flavor covers it
    double asked = 0;      // the job's total, base units (cores, bytes, count)
    double used = 0;       // the flavor's reserved quota (status.flavorsReservation)
    double nominal = 0;
    std::optional<double> borrowing_limit;  // nullopt: none set
    bool unbounded = false;  // no limit set in a cohort: it may borrow what the cohort lends
    QueueFitVerdict verdict = QueueFitVerdict::FitsNow;
};

// What cluster_queue_fit says.
struct QueueFit {
    QueueFitVerdict verdict = QueueFitVerdict::FitsNow;
    std::string cluster_queue;
    std::vector<QueueFitResource> resources;  // each resource the job asks for, by name
    // One line naming ClusterQueue, resource, asked, used and quota, for the resources that
    // decide the verdict: "ClusterQueue gpu can never admit the job: nvidia.com/gpu asked 16,
    // used 2 of 8 (+4 borrowing) in flavor a100".
    std::string message;
};

// Decide whether a job fits the ClusterQueue its LocalQueue points at.
// How to call: job_requests maps each resource name ("cpu", "memory", "nvidia.com/gpu", any
// extended resource) to the summed requests of all the job's pods (every replica; a TrainJob's
// every node) in base units: cores, bytes, count; zero entries are ignored. cluster_queue is
// one ClusterQueue object as `kubectl get clusterqueues.kueue.x-k8s.io NAME -o json` prints
// it (or an item of the list). Each resource group picks its best flavor for all the job's
// resources it covers, as Kueue assigns one flavor per group; the verdict is the worst of the
// groups'. Quantities that cannot be read count as 0 (quota) and are ignored (usage). "pods"
// (the job's pod count) is held to a quota of pods where the ClusterQueue sets one, as Kueue
// does, and is otherwise not counted.
QueueFit cluster_queue_fit(const std::map<std::string, double>& job_requests,
                           const nlohmann::json& cluster_queue);

}  // namespace kftrain::doctor
