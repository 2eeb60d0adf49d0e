#include "cost/job_sizing.h"

#include <fmt/format.h>

#include "cost/saved_profile.h"
#include "doctor/sizing_check.h"
#include "manifest/k8s/quantity.h"

namespace kftrain::cost {
namespace {

// A quantity of the job file, or nullopt where it is not set (or not one: validation said so).
std::optional<double> amount(const std::string& text) {
    return text.empty() ? std::nullopt : manifest::parse_quantity(text);
}

}  // namespace

JobResources job_resources(const manifest::JobSpec& spec) {
    const manifest::Resources& r = spec.resources;
    JobResources out;
    out.memory_limit = amount(r.memory_limit.empty() ? r.memory : r.memory_limit);
    out.memory_request = amount(r.memory.empty() ? r.memory_limit : r.memory);
    out.cpu_request = amount(r.cpu.empty() ? r.cpu_limit : r.cpu);
    return out;
}

std::optional<SizingReview> review_job_sizing(const manifest::JobSpec& spec, bool on_cluster) {
    auto profile = read_measured_use(spec, on_cluster);
    if (!profile) {
        return std::nullopt;
    }
    auto sizing = estimate::recommend_sizing(profile->sizes);
    if (!sizing) {
        return std::nullopt;
    }
    const JobResources resources = job_resources(spec);
    SizingReview review{std::move(*profile), *sizing, {}};
    review.findings = estimate::check_job_resources(
        review.sizing, resources.memory_limit, resources.memory_request, resources.cpu_request);
    return review;
}

std::string measured_note(const estimate::ProgramProfile& profile) {
    return fmt::format("measured {} ({})", profile.measured_at.substr(0, 10), profile.source);
}

std::vector<std::string> sizing_warnings(const manifest::JobSpec& spec, bool on_cluster) {
    std::vector<std::string> out;
    if (auto review = review_job_sizing(spec, on_cluster)) {
        for (const estimate::SizingFinding& finding : review->findings) {
            out.push_back(fmt::format("{}; {}", finding.message, measured_note(review->profile)));
        }
    }
    return out;
}

doctor::Check measured_use_check(const manifest::JobSpec& spec, bool on_cluster) {
    auto review = review_job_sizing(spec, on_cluster);
    if (!review) {
        return doctor::unmeasured_check("job");
    }
    return doctor::sizing_check("job", review->sizing, review->findings,
                                measured_note(review->profile));
}

}  // namespace kftrain::cost
