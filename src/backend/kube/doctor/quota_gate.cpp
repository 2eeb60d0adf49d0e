#include "backend/kube/doctor/quota_gate.h"

#include <fmt/format.h>

#include "backend/kube/doctor/cluster_reads.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/kueue/cluster_queues.h"
#include "doctor/queue_fit.h"
#include "doctor/quota.h"
#include "job/exit_codes.h"

namespace kftrain::backend::kube {
namespace {

// What the namespace's quotas say of a job: what refuses it for good, and what to warn of.
struct Findings {
    std::vector<std::string> never;
    std::vector<std::string> warnings;
};

bool reaches_no_cluster(const std::string& err) {
    const KubectlFailure failure = classify_kubectl_error(err);
    return failure == KubectlFailure::Unreachable || failure == KubectlFailure::ContextMissing ||
           failure == KubectlFailure::Unauthorized;
}

void judge_resource_quotas(const nlohmann::json& list, const doctor::JobFootprint& footprint,
                           const std::string& ns, Findings& out) {
    out.never = doctor::limit_range_refusals(list, footprint);
    const std::string in = ns.empty() ? "" : " -n " + ns;
    for (const auto& verdict : doctor::judge_quotas(list, footprint)) {
        for (const auto& note : verdict.notes) {
            out.warnings.push_back(fmt::format("quota {}: {} (not checked)", verdict.name, note));
        }
        if (verdict.fit == doctor::QuotaFit::Never) {
            out.never.push_back(
                fmt::format("quota {}: {}", verdict.name, doctor::verdict_line(verdict)));
        } else if (verdict.fit == doctor::QuotaFit::Later) {
            out.warnings.push_back(fmt::format(
                "quota {} fits the job only when others' pods end ({}): until then some of its "
                "replicas are refused and the others wait for them (kubectl describe "
                "resourcequota {}{})",
                verdict.name, doctor::verdict_line(verdict), verdict.name, in));
        }
    }
}

// The job's whole request against the ClusterQueue its LocalQueue points at, as Kueue admits
// it (a job it can never admit would wait suspended forever).
void judge_cluster_queue(KubeQueries& queries, const std::string& name,
                         const doctor::Amounts& requests, Findings& out) {
    auto read = queries.call({"get", k_cluster_queue_resource, "-o", "json", "--", name}, false);
    const auto queue = read_json(read);
    if (!queue) {
        out.warnings.push_back(
            fmt::format("ClusterQueue {}'s quota was not checked: {}", name, read_failure(read)));
        return;
    }
    const doctor::QueueFit fit = doctor::cluster_queue_fit(requests, *queue);
    if (fit.verdict == doctor::QueueFitVerdict::NeverFits) {
        out.never.push_back(fit.message);
    } else if (fit.verdict == doctor::QueueFitVerdict::FitsLater) {
        out.warnings.push_back(fit.message);
    }
}

}  // namespace

util::Result<std::vector<std::string>> check_quotas(KubeQueries& queries,
                                                    const manifest::JobSpec& spec,
                                                    const std::string& ns,
                                                    const std::string& cluster_queue, bool force) {
    const std::string where = ns.empty() ? queries.namespace_text() : "namespace " + ns;
    auto read = queries.call(quota_read_args(ns), ns.empty());
    if (!read || (!read->ok() && reaches_no_cluster(read->err))) {
        return std::vector<std::string>{};  // the apply that follows says why, once
    }
    const doctor::JobFootprint footprint = doctor::job_footprint(spec);
    Findings found;
    const auto list = read_json(read);
    if (list) {
        judge_resource_quotas(*list, footprint, ns, found);
    } else {  // never a false "fits": say what was not checked, and go on
        found.warnings.push_back(
            fmt::format("the ResourceQuotas of {} were not checked: {}", where,
                        read->ok() ? std::string("kubectl printed no JSON") : read_failure(read)));
    }
    if (!cluster_queue.empty()) {
        std::vector<std::string> notes;
        const auto defaults =
            list ? doctor::read_container_defaults(*list, notes) : doctor::ContainerDefaults{};
        judge_cluster_queue(queries, cluster_queue,
                            doctor::job_requests(doctor::with_defaults(footprint, defaults)),
                            found);
    }
    if (found.never.empty()) {
        return found.warnings;
    }
    if (force) {
        for (const auto& refusal : found.never) {
            found.warnings.push_back(refusal + ": submitted anyway (--force)");
        }
        return found.warnings;
    }
    return util::error(
        fmt::format("{}: the job can never run in {} (hint: ask for less: resources, "
                    "replicas; or ask the namespace's admin; kftrain doctor -f JOB{} says "
                    "more; --force submits it anyway)",
                    found.never.front(), where, ns.empty() ? "" : " -n " + ns),
        k_exit_bad_input);
}

}  // namespace kftrain::backend::kube
