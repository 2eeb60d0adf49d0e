#include "backend/kube/job_reader.h"

#include <algorithm>

#include "backend/kube/json_fields.h"
#include "backend/kube/status/pods.h"
#include "backend/kube/status/status.h"
#include "backend/kube/status/trainjob_status.h"

namespace kftrain::backend::kube {
namespace {

std::vector<std::string> operator_pod_selectors(const nlohmann::json& job) {
    std::vector<std::string> selectors = pod_selectors(string_at(member(job, "metadata"), "name"));
    for (const auto& selector : status_selectors(job)) {
        selectors.push_back(selector);
    }
    return selectors;
}

std::vector<std::string> trainjob_pod_selectors(const nlohmann::json& job) {
    return {trainjob_pod_selector(string_at(member(job, "metadata"), "name"))};
}

void nothing_to_settle(job::JobStatus&) {}

// The Training Operator's kinds differ only in their replica types: rank 0 is the Master, or
// Worker 0 of a kind without one (JAXJob).
const JobReader k_readers[] = {
    {manifest::JobKind::PyTorchJob, job_status_from, operator_pod_selectors, nothing_to_settle,
     "master-0"},
    {manifest::JobKind::TrainJob, trainjob_status_from, trainjob_pod_selectors,
     settle_trainjob_status, "node-0"},
    {manifest::JobKind::XGBoostJob, job_status_from, operator_pod_selectors, nothing_to_settle,
     "master-0"},
    {manifest::JobKind::JAXJob, job_status_from, operator_pod_selectors, nothing_to_settle,
     "worker-0"},
    // Worker 0 where there is no Chief: the backend falls back to it.
    {manifest::JobKind::TFJob, job_status_from, operator_pod_selectors, nothing_to_settle,
     "chief-0"},
};

}  // namespace

const JobReader& job_reader(manifest::JobKind kind) {
    for (const JobReader& reader : k_readers) {
        if (reader.kind == kind) {
            return reader;
        }
    }
    return k_readers[0];
}

std::string lead_replica(const job::JobStatus& status) {
    auto kind = manifest::parse_kind(status.kind).value_or(manifest::JobKind::PyTorchJob);
    auto has = [&status](const std::string& name) {
        return std::any_of(status.replicas.begin(), status.replicas.end(),
                           [&name](const job::ReplicaStatus& r) { return r.name == name; });
    };
    if (kind == manifest::JobKind::TrainJob && has("launcher")) {
        return "launcher";
    }
    const std::string lead = job_reader(kind).progress_replica;
    return has(lead) ? lead : "worker-0";
}

}  // namespace kftrain::backend::kube
