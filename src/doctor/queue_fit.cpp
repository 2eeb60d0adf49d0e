#include "doctor/queue_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "manifest/k8s/quantity.h"
#include "util/json_fields.h"

namespace kftrain::doctor {
namespace {

using nlohmann::json;
using util::member;
using util::string_at;

// The most groups, flavors and resources read of one ClusterQueue (the CRD allows 16 groups,
// 16 flavors and 64 resources).
constexpr size_t k_max_items = 64;

// A quantity as the API prints it: a string, or an integer for int-or-string fields.
std::optional<double> quantity_of(const json& value) {
    if (value.is_number()) {
        double number = value.get<double>();
        return std::isfinite(number) ? std::optional<double>(number) : std::nullopt;
    }
    if (value.is_string()) {
        return manifest::parse_quantity(value.get<std::string>());
    }
    return std::nullopt;
}

// The first k_max_items of an array member, or none.
std::vector<json> items_of(const json& object, const char* key) {
    const json& array = member(object, key);
    if (!array.is_array()) {
        return {};
    }
    return {array.begin(), array.begin() + static_cast<long>(std::min(array.size(), k_max_items))};
}

// Reserved quota by flavor and resource: status.flavorsReservation, else flavorsUsage.
std::map<std::pair<std::string, std::string>, double> reserved_of(const json& cq) {
    std::map<std::pair<std::string, std::string>, double> reserved;
    const json& status = member(cq, "status");
    auto flavors = items_of(status, "flavorsReservation");
    if (flavors.empty()) {
        flavors = items_of(status, "flavorsUsage");
    }
    for (const json& flavor : flavors) {
        for (const json& r : items_of(flavor, "resources")) {
            if (auto total = quantity_of(member(r, "total"))) {
                reserved[{string_at(flavor, "name"), string_at(r, "name")}] = *total;
            }
        }
    }
    return reserved;
}

bool fits_under(double a, double b) {
    return a <= b + 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

QueueFitResource judge(QueueFitResource r) {
    if (r.unbounded) {
        r.verdict = fits_under(r.used + r.asked, r.nominal) ? QueueFitVerdict::FitsNow
                                                            : QueueFitVerdict::FitsLater;
        return r;
    }
    const double ceiling = r.nominal + r.borrowing_limit.value_or(0);
    r.verdict = fits_under(r.used + r.asked, ceiling) ? QueueFitVerdict::FitsNow
                : fits_under(r.asked, ceiling)        ? QueueFitVerdict::FitsLater
                                                      : QueueFitVerdict::NeverFits;
    return r;
}

QueueFitVerdict worst(const std::vector<QueueFitResource>& resources) {
    QueueFitVerdict verdict = QueueFitVerdict::FitsNow;
    for (const auto& r : resources) {
        verdict = std::max(verdict, r.verdict);
    }
    return verdict;
}

// The job's resources this group covers, judged in each of its flavors; the best flavor's.
std::vector<QueueFitResource> judge_group(
    const std::map<std::string, double>& job, const json& group, bool in_cohort,
    const std::map<std::pair<std::string, std::string>, double>& reserved) {
    std::vector<QueueFitResource> best;
    for (const json& flavor : items_of(group, "flavors")) {
        std::vector<QueueFitResource> judged;
        for (const json& quota : items_of(flavor, "resources")) {
            auto asked = job.find(string_at(quota, "name"));
            if (asked == job.end() || asked->second <= 0) {
                continue;
            }
            QueueFitResource r;
            r.resource = asked->first;
            r.flavor = string_at(flavor, "name");
            r.asked = asked->second;
            auto used = reserved.find({r.flavor, r.resource});
            r.used = used == reserved.end() ? 0 : used->second;
            r.nominal = quantity_of(member(quota, "nominalQuota")).value_or(0);
            r.borrowing_limit = quantity_of(member(quota, "borrowingLimit"));
            r.unbounded = !r.borrowing_limit && in_cohort;
            judged.push_back(judge(r));
        }
        if (!judged.empty() && (best.empty() || worst(judged) < worst(best) ||
                                (worst(judged) == worst(best) && judged.size() > best.size()))) {
            best = std::move(judged);
        }
    }
    return best;
}

std::string quota_text(const QueueFitResource& r) {
    std::string text = manifest::quantity_text(r.resource, r.nominal);
    if (r.borrowing_limit && *r.borrowing_limit > 0) {
        text += fmt::format(" (+{} borrowing)",
                            manifest::quantity_text(r.resource, *r.borrowing_limit));
    } else if (r.unbounded) {
        text += " (+ what its cohort lends)";
    }
    return text;
}

std::string resource_text(const QueueFitResource& r) {
    if (r.flavor.empty()) {
        return fmt::format("{} asked {}, but no flavor of it covers {}", r.resource,
                           manifest::quantity_text(r.resource, r.asked), r.resource);
    }
    return fmt::format("{} asked {}, used {} of {} in flavor {}", r.resource,
                       manifest::quantity_text(r.resource, r.asked),
                       manifest::quantity_text(r.resource, r.used), quota_text(r), r.flavor);
}

std::string message_of(const QueueFit& fit) {
    std::vector<std::string> parts;
    for (const auto& r : fit.resources) {
        if (r.verdict == fit.verdict) {
            parts.push_back(resource_text(r));
        }
    }
    const std::string said = parts.empty() ? "" : fmt::format(": {}", fmt::join(parts, "; "));
    switch (fit.verdict) {
        case QueueFitVerdict::FitsNow:
            return fmt::format("ClusterQueue {} has room for the job{}", fit.cluster_queue, said);
        case QueueFitVerdict::FitsLater:
            return fmt::format("ClusterQueue {} admits the job when others' workloads finish{}",
                               fit.cluster_queue, said);
        case QueueFitVerdict::NeverFits:
            return fmt::format("ClusterQueue {} can never admit the job{}", fit.cluster_queue,
                               said);
    }
    return said;
}

}  // namespace

const char* queue_fit_name(QueueFitVerdict verdict) {
    switch (verdict) {
        case QueueFitVerdict::FitsNow:
            return "fits now";
        case QueueFitVerdict::FitsLater:
            return "fits when others finish";
        case QueueFitVerdict::NeverFits:
            return "never fits";
    }
    return "never fits";
}

QueueFit cluster_queue_fit(const std::map<std::string, double>& job_requests,
                           const nlohmann::json& cluster_queue) {
    QueueFit fit;
    fit.cluster_queue = string_at(member(cluster_queue, "metadata"), "name");
    const json& spec = member(cluster_queue, "spec");
    // v1beta2 names the cohort cohortName, v1beta1 cohort.
    const bool in_cohort =
        !string_at(spec, "cohortName").empty() || !string_at(spec, "cohort").empty();
    const auto reserved = reserved_of(cluster_queue);
    for (const json& group : items_of(spec, "resourceGroups")) {
        auto judged = judge_group(job_requests, group, in_cohort, reserved);
        fit.resources.insert(fit.resources.end(), judged.begin(), judged.end());
    }
    for (const auto& [resource, asked] : job_requests) {
        // Kueue counts pods only in a ClusterQueue that sets a quota of them.
        const bool covered =
            asked <= 0 || resource == "pods" ||
            std::any_of(fit.resources.begin(), fit.resources.end(),
                        [&](const QueueFitResource& r) { return r.resource == resource; });
        if (!covered) {
            QueueFitResource r;
            r.resource = resource;
            r.asked = asked;
            r.verdict = QueueFitVerdict::NeverFits;
            fit.resources.push_back(r);
        }
    }
    std::sort(fit.resources.begin(), fit.resources.end(),
              [](const auto& a, const auto& b) { return a.resource < b.resource; });
    fit.verdict = worst(fit.resources);
    fit.message = message_of(fit);
    return fit;
}

}  // namespace kftrain::doctor
