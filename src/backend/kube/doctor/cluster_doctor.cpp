#include "backend/kube/doctor/cluster_doctor.h"

#include <algorithm>

#include "backend/kube/doctor/cluster_checks.h"
#include "backend/kube/doctor/cluster_reads.h"
#include "backend/kube/kubectl.h"
#include "cost/job_sizing.h"
#include "doctor/access.h"
#include "manifest/job_kind.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

// The namespace to check: the request's, the job's, else the context's (default: default).
std::string namespace_of(KubectlRunner& kubectl, const job::DoctorRequest& request) {
    if (!request.namespace_.empty()) {
        return request.namespace_;
    }
    if (request.job) {
        return request.job->namespace_;
    }
    auto current = kubectl.run({"config", "view", "--minify", "-o", "jsonpath={..namespace}"});
    const std::string ns = current && current->ok() ? util::trim(current->out) : "";
    return ns.empty() ? "default" : ns;
}

// Every resource kftrain may use: the five kinds, Katib's and Kueue's. The reviews are asked
// for all at once; the checks keep those the cluster serves.
std::vector<doctor::Access> every_access() {
    std::vector<std::string> kinds;
    for (manifest::JobKind kind : manifest::k_kinds) {
        kinds.emplace_back(manifest::kind_resource(kind));
    }
    return doctor::needed_access(kinds, true, true);
}

// Keep the permissions of what is served (and the core API's).
std::vector<doctor::Check> served_only(std::vector<doctor::Check> checks,
                                       const std::vector<doctor::Access>& accesses,
                                       const std::vector<std::string>& served) {
    std::vector<doctor::Check> out;
    for (size_t i = 0; i < checks.size(); ++i) {
        const doctor::Access* access = i < accesses.size() ? &accesses[i] : nullptr;
        const bool keep = access == nullptr || access->group.empty() ||
                          std::find(served.begin(), served.end(),
                                    access->resource + "." + access->group) != served.end();
        if (keep) {
            out.push_back(std::move(checks[i]));
        }
    }
    return out;
}

}  // namespace

doctor::Report cluster_doctor(const job::BackendOptions& global,
                              const job::DoctorRequest& request) {
    job::BackendOptions options = global;
    if (options.request_timeout.empty()) {
        options.request_timeout = k_doctor_request_timeout;
    }
    auto kubectl = make_kubectl_runner(options);
    ReadPlan plan;
    plan.ns = namespace_of(*kubectl, request);
    const auto accesses = every_access();
    plan.access_reviews = doctor::access_reviews(accesses, plan.ns);
    plan.job = request.job.has_value();
    if (request.job) {
        plan.secrets = job_secrets(*request.job);
    }
    const ClusterReads reads = read_cluster(*kubectl, plan);
    doctor::Report report;
    report.checks = client_checks(reads);
    const manifest::JobSpec* job = request.job ? &*request.job : nullptr;
    if (!server_reachable(reads)) {
        report.checks.push_back(doctor::check("cluster", "the rest", doctor::State::Skipped,
                                              "the API server could not be reached", "", false));
    } else {
        for (auto& c : cluster_checks(reads, job)) {
            report.checks.push_back(std::move(c));
        }
        const auto permissions = permission_checks(reads, accesses);
        const auto served = served_resources(reads);
        for (auto& c : permissions.size() == accesses.size()
                           ? served_only(permissions, accesses, served)
                           : permissions) {
            report.checks.push_back(std::move(c));
        }
        if (job != nullptr) {
            for (auto& c : job_checks(reads, *job)) {
                report.checks.push_back(std::move(c));
            }
        }
    }
    if (job != nullptr) {  // from the saved profile: no cluster read needed
        report.checks.push_back(cost::measured_use_check(*job, true));
    }
    report.verdict = doctor::verdict(report.checks, job != nullptr, false);
    return report;
}

}  // namespace kftrain::backend::kube
