#include "backend/kube/quota_gate.h"

#include <fmt/format.h>

#include "backend/kube/doctor/cluster_reads.h"
#include "backend/kube/kubectl_errors.h"
#include "doctor/quota.h"
#include "job/exit_codes.h"

namespace kftrain::backend::kube {
namespace {

bool reaches_no_cluster(const std::string& err) {
    const KubectlFailure failure = classify_kubectl_error(err);
    return failure == KubectlFailure::Unreachable || failure == KubectlFailure::ContextMissing ||
           failure == KubectlFailure::Unauthorized;
}

}  // namespace

std::vector<std::string> quota_read_args(const std::string& ns) {
    std::vector<std::string> args = {"get", "resourcequotas,limitranges", "-o", "json"};
    if (!ns.empty()) {
        args.insert(args.end(), {"--namespace", ns});
    }
    return args;
}

util::Result<std::vector<std::string>> check_quotas(KubeQueries& queries,
                                                    const manifest::JobSpec& spec,
                                                    const std::string& ns, bool force) {
    const std::string where = ns.empty() ? queries.namespace_text() : "namespace " + ns;
    auto read = queries.call(quota_read_args(ns), ns.empty());
    if (!read || (!read->ok() && reaches_no_cluster(read->err))) {
        return std::vector<std::string>{};  // the apply that follows says why, once
    }
    const auto list = read_json(read);
    if (!list) {  // never a false "fits": say what was not checked, and go on
        return std::vector<std::string>{fmt::format(
            "the ResourceQuotas of {} were not checked: {}", where,
            read && read->ok() ? std::string("kubectl printed no JSON") : read_failure(read))};
    }
    const doctor::JobFootprint footprint = doctor::job_footprint(spec);
    std::vector<std::string> never = doctor::limit_range_refusals(*list, footprint);
    std::vector<std::string> warnings;
    const std::string in = ns.empty() ? "" : " -n " + ns;
    for (const auto& verdict : doctor::judge_quotas(*list, footprint)) {
        for (const auto& note : verdict.notes) {
            warnings.push_back(fmt::format("quota {}: {} (not checked)", verdict.name, note));
        }
        if (verdict.fit == doctor::QuotaFit::Never) {
            never.push_back(fmt::format("quota {}: {}", verdict.name, doctor::verdict_line(verdict)));
        } else if (verdict.fit == doctor::QuotaFit::Later) {
            warnings.push_back(fmt::format(
                "quota {} fits the job only when others' pods end ({}): until then some of its "
                "replicas are refused and the others wait for them (kubectl describe "
                "resourcequota {}{})",
                verdict.name, doctor::verdict_line(verdict), verdict.name, in));
        }
    }
    if (never.empty()) {
        return warnings;
    }
    if (force) {
        for (const auto& refusal : never) {
            warnings.push_back(refusal + ": submitted anyway (--force); its pods are refused");
        }
        return warnings;
    }
    return util::error(
        fmt::format("{}: the job can never run in {} (hint: ask for less: resources, "
                    "replicas; or ask the namespace's admin; kftrain doctor -f JOB{} says "
                    "more; --force submits it anyway)",
                    never.front(), where, in),
        k_exit_bad_input);
}

}  // namespace kftrain::backend::kube
