#pragma once

// Whether a job fits its namespace's ResourceQuotas (docs/shared-clusters.md): every quota the
// job's pods and objects count against, its hard limits and what others already use, after the
// LimitRanges' defaults. Pure: the quotas and LimitRanges come from a backend as JSON.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "doctor/pod_demand.h"
#include "doctor/report.h"

namespace kftrain::doctor {

// A quota's verdict on the job, worst last.
enum class QuotaFit {
    Fits,       // the job fits beside what others use now
    Later,      // it fits the hard limits, not beside what others use: it waits for them
    Never,      // the job alone asks more than hard, or the API server refuses its pods
    NotCounted  // the quota's scopes match none of the job's pods or objects
};

// One resource a quota holds the job to.
struct QuotaLine {
    std::string resource;  // requests.cpu, pods, count/configmaps, nvidia.com/gpu...
    double asked = 0;      // the whole job
    double used = 0;       // by what exists in the namespace now
    double hard = 0;
    QuotaFit fit = QuotaFit::Fits;
};

// How one ResourceQuota takes the job.
struct QuotaVerdict {
    std::string name;
    QuotaFit fit = QuotaFit::NotCounted;
    std::vector<QuotaLine> lines;  // the resources the job asks that the quota holds
    // What the API server would refuse the job's pods for: "must specify limits.cpu" (a quota
    // on limits.cpu and a container without one).
    std::vector<std::string> refusals;
    std::vector<std::string> notes;  // what could not be read of the quota
};

// Judge the job against each ResourceQuota of a List (`get resourcequotas,limitranges -o
// json`: the LimitRanges' defaults apply first), one verdict per quota, in the List's order.
std::vector<QuotaVerdict> judge_quotas(const nlohmann::json& list, const JobFootprint& footprint);

// Return what the LimitRanges of a List make the API server refuse in the job's containers
// ("LimitRange limits: the container's cpu limit 500m (its default) is below its request 600m"),
// none when they admit them.
std::vector<std::string> limit_range_refusals(const nlohmann::json& list,
                                              const JobFootprint& footprint);

// Return the one line that says why a verdict is what it is: "requests.cpu: the job asks 4,
// 6 of 8 used"; for Never the first resource the job alone exceeds, or the refusal.
std::string verdict_line(const QuotaVerdict& verdict);

// Return doctor's checks of the quotas in namespace ns: one per quota that counts the job
// (fits: ok; later: warning; never: failed), the LimitRanges' refusals as a failed check, and
// "no ResourceQuota" as ok when there are none.
std::vector<Check> quota_checks(const nlohmann::json& list, const JobFootprint& footprint,
                                const std::string& ns);

}  // namespace kftrain::doctor
