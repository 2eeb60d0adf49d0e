#include "cli/kube/job_reader.h"

#include "cli/kube/json_fields.h"
#include "cli/kube/status/pods.h"
#include "cli/kube/status/status.h"
#include "cli/kube/status/trainjob_status.h"

namespace kftrain::cli::kube {
namespace {

std::vector<std::string> pytorchjob_pod_selectors(const nlohmann::json& job) {
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

const JobReader k_pytorchjob_reader = {manifest::JobKind::PyTorchJob, job_status_from,
                                       pytorchjob_pod_selectors, nothing_to_settle, "master-0"};
const JobReader k_trainjob_reader = {manifest::JobKind::TrainJob, trainjob_status_from,
                                     trainjob_pod_selectors, settle_trainjob_status, "node-0"};

}  // namespace

const JobReader& job_reader(manifest::JobKind kind) {
    return kind == manifest::JobKind::TrainJob ? k_trainjob_reader : k_pytorchjob_reader;
}

}  // namespace kftrain::cli::kube
