#include "doctor/quota.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "manifest/k8s/quantity.h"
#include "util/json_fields.h"
#include "util/text.h"

namespace kftrain::doctor {
namespace {

using nlohmann::json;

// One ResourceQuota as read.
struct Quota {
    std::string name;
    Amounts hard;
    Amounts used;
    std::vector<std::string> scopes;  // spec.scopes
    json selector;                    // spec.scopeSelector.matchExpressions
    std::vector<std::string> notes;
};

Quota read_quota(const json& item) {
    Quota q;
    q.name = util::escape_line(util::string_at(util::member(item, "metadata"), "name"));
    const json& status = util::member(item, "status");
    // What the quota controller enforces is status.hard; spec.hard until it has caught up.
    const json& hard = util::member(status, "hard").is_object()
                           ? util::member(status, "hard")
                           : util::member(util::member(item, "spec"), "hard");
    q.hard = read_amounts(hard, "hard", q.notes);
    q.used = read_amounts(util::member(status, "used"), "used", q.notes);
    for (const auto& scope : util::member(util::member(item, "spec"), "scopes")) {
        if (scope.is_string()) {
            q.scopes.push_back(scope.get<std::string>());
        }
    }
    q.selector =
        util::member(util::member(util::member(item, "spec"), "scopeSelector"), "matchExpressions");
    return q;
}

bool scope_matches(const std::string& scope, const PodGroup& group, const std::string& op,
                   const json& values) {
    if (scope == "Terminating" || scope == "CrossNamespacePodAffinity") {
        return false;  // kftrain's pods set no activeDeadlineSeconds and no cross-namespace terms
    }
    if (scope == "NotTerminating") {
        return true;
    }
    if (scope == "BestEffort" || scope == "NotBestEffort") {
        return best_effort(group) == (scope == "BestEffort");
    }
    if (scope == "PriorityClass") {
        const bool listed =
            values.is_array() && std::any_of(values.begin(), values.end(), [&](const json& v) {
                return v.is_string() && v.get<std::string>() == group.priority_class;
            });
        return op == "In"             ? listed
               : op == "NotIn"        ? !listed
               : op == "DoesNotExist" ? group.priority_class.empty()
                                      : !group.priority_class.empty();  // Exists
    }
    return false;
}

bool counts_pods(const Quota& q, const PodGroup& group) {
    const bool scopes = std::all_of(q.scopes.begin(), q.scopes.end(), [&](const auto& scope) {
        return scope_matches(scope, group, "Exists", json());
    });
    const json& terms = q.selector.is_array() ? q.selector : json::array();
    return scopes && std::all_of(terms.begin(), terms.end(), [&](const json& term) {
               const json& name = util::member(term, "scopeName");
               const json& op = util::member(term, "operator");
               return name.is_string() && op.is_string() &&
                      scope_matches(name.get<std::string>(), group, op.get<std::string>(),
                                    util::member(term, "values"));
           });
}

bool scoped(const Quota& q) {
    return !q.scopes.empty() || (q.selector.is_array() && !q.selector.empty());
}

// What the job's pods and objects add to a quota's resource; 0 for what it creates none of.
double job_amount(const std::string& resource, const Quota& q, const JobFootprint& footprint) {
    const auto starts = [&](const char* prefix) { return resource.rfind(prefix, 0) == 0; };
    double total = 0;
    for (const auto& group : footprint.pods) {
        if (!counts_pods(q, group)) {
            continue;
        }
        const ContainerAsk pod = pod_ask(group);
        const auto of = [&](const Amounts& amounts, const std::string& name) {
            auto at = amounts.find(name);
            return at == amounts.end() ? 0.0 : at->second;
        };
        if (resource == "pods" || resource == "count/pods") {
            total += group.count;
        } else if (starts("limits.")) {
            total += group.count * of(pod.limits, resource.substr(7));
        } else if (starts("requests.")) {
            total += group.count * of(pod.requests, resource.substr(9));
        } else if (resource == "cpu" || resource == "memory" || resource == "ephemeral-storage") {
            total += group.count * of(pod.requests, resource);
        }
    }
    if (!scoped(q) && resource != "count/pods") {  // a scoped quota counts pods alone
        const std::string object = starts("count/") ? resource.substr(6) : resource;
        auto at = footprint.objects.find(object);
        total += at == footprint.objects.end() ? 0 : static_cast<double>(at->second);
    }
    return total;
}

// The quota admission's old rule: a quota on CPU or memory makes every container of the pods
// it counts say its request (or limit) of them.
std::vector<std::string> must_specify(const Quota& q, const JobFootprint& footprint) {
    static const std::set<std::string> validated = {
        "cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"};
    std::set<std::string> missing;
    for (const auto& group : footprint.pods) {
        if (!counts_pods(q, group)) {
            continue;
        }
        std::vector<ContainerAsk> all = group.containers;
        all.insert(all.end(), group.init_containers.begin(), group.init_containers.end());
        for (const auto& container : all) {
            for (const auto& [resource, hard] : q.hard) {
                if (validated.count(resource) == 0) {
                    continue;
                }
                const bool limit = resource.rfind("limits.", 0) == 0;
                const std::string base = resource.substr(resource.find('.') + 1);
                const Amounts& set = limit ? container.limits : container.requests;
                if (set.count(base) == 0) {
                    missing.insert(resource);
                }
            }
        }
    }
    return {missing.begin(), missing.end()};
}

bool at_most(double value, double bound) {
    return value <= bound + 1e-9 * std::max(1.0, std::fabs(bound));
}

QuotaVerdict judge(const Quota& q, const JobFootprint& footprint) {
    QuotaVerdict verdict{q.name, QuotaFit::NotCounted, {}, {}, q.notes};
    for (const auto& [resource, hard] : q.hard) {
        const double asked = job_amount(resource, q, footprint);
        if (asked <= 0) {
            continue;
        }
        const double used = q.used.count(resource) != 0 ? q.used.at(resource) : 0;
        const QuotaFit fit = !at_most(asked, hard)         ? QuotaFit::Never
                             : at_most(asked + used, hard) ? QuotaFit::Fits
                                                           : QuotaFit::Later;
        verdict.lines.push_back({resource, asked, used, hard, fit});
        verdict.fit = verdict.fit == QuotaFit::NotCounted ? fit : std::max(verdict.fit, fit);
    }
    const auto missing = must_specify(q, footprint);
    if (!missing.empty()) {
        verdict.refusals.push_back("must specify " + fmt::format("{}", fmt::join(missing, ",")));
        verdict.fit = QuotaFit::Never;
    }
    return verdict;
}

}  // namespace

std::vector<QuotaVerdict> judge_quotas(const json& list, const JobFootprint& footprint) {
    std::vector<std::string> notes;
    const JobFootprint job = with_defaults(footprint, read_container_defaults(list, notes));
    std::vector<QuotaVerdict> out;
    for (const auto& item :
         util::member(list, "items").is_array() ? util::member(list, "items") : json()) {
        if (util::member(item, "kind").is_string() && item["kind"] == "ResourceQuota") {
            out.push_back(judge(read_quota(item), job));
        }
    }
    return out;
}

std::string verdict_line(const QuotaVerdict& verdict) {
    if (verdict.fit == QuotaFit::Never && !verdict.refusals.empty()) {
        return fmt::format("failed quota: {}: {}", verdict.name, verdict.refusals.front());
    }
    std::vector<std::string> parts;
    for (const auto& line : verdict.lines) {
        if (line.fit != verdict.fit) {
            continue;  // the resources that make the verdict
        }
        parts.push_back(fmt::format("{}: the job asks {}, {} of {} used", line.resource,
                                    manifest::quantity_text(line.resource, line.asked),
                                    manifest::quantity_text(line.resource, line.used),
                                    manifest::quantity_text(line.resource, line.hard)));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

std::vector<std::string> limit_range_refusals(const json& list, const JobFootprint& footprint) {
    std::vector<std::string> notes;
    const ContainerDefaults defaults = read_container_defaults(list, notes);
    const JobFootprint job = with_defaults(footprint, defaults);
    const std::string who = "LimitRange " + fmt::format("{}", fmt::join(defaults.names, ", "));
    std::set<std::string> out;
    for (size_t g = 0; g < job.pods.size(); ++g) {
        for (size_t c = 0; c < job.pods[g].containers.size(); ++c) {
            const ContainerAsk& container = job.pods[g].containers[c];
            for (const auto& [resource, max] : defaults.max) {
                auto limit = container.limits.find(resource);
                if (limit == container.limits.end() || !at_most(limit->second, max)) {
                    out.insert(fmt::format(
                        "{}: a container's {} limit may be at most {}, the replicas' is {}: the "
                        "API server refuses every pod",
                        who, resource, manifest::quantity_text(resource, max),
                        limit == container.limits.end()
                            ? std::string("unset")
                            : manifest::quantity_text(resource, limit->second)));
                }
            }
        }
    }
    return {out.begin(), out.end()};
}

std::vector<Check> quota_checks(const json& list, const JobFootprint& footprint,
                                const std::string& ns) {
    std::vector<Check> out;
    for (const std::string& refusal : limit_range_refusals(list, footprint)) {
        out.push_back(check("job", "LimitRange", State::Failed, refusal,
                            "set resources (requests and limits) within it: kubectl describe "
                            "limitrange -n " +
                                ns));
    }
    const auto verdicts = judge_quotas(list, footprint);
    for (const auto& v : verdicts) {
        const std::string name = "quota " + v.name;
        const std::string notes =
            v.notes.empty() ? ""
                            : " (" + fmt::format("{}", fmt::join(v.notes, "; ")) + ": not checked)";
        const std::string describe = "kubectl describe resourcequota " + v.name + " -n " + ns;
        switch (v.fit) {
            case QuotaFit::NotCounted:
                out.push_back(check("job", name, State::Ok,
                                    "counts none of the job's pods or objects" + notes));
                break;
            case QuotaFit::Fits:
                out.push_back(check("job", name, State::Ok, "fits: " + verdict_line(v) + notes));
                break;
            case QuotaFit::Later:
                out.push_back(check(
                    "job", name, State::Warning,
                    "fits only when others' pods end: " + verdict_line(v) +
                        "; until then some replicas are refused and the others wait for them" +
                        notes,
                    "wait, or queue the job with Kueue (queue:) so it starts whole; " + describe,
                    false));
                break;
            case QuotaFit::Never:
                out.push_back(check("job", name, State::Failed,
                                    "never fits: " + verdict_line(v) + notes,
                                    "ask for less (resources, replicas) or ask the namespace's "
                                    "admin to raise it; " +
                                        describe));
                break;
        }
    }
    if (verdicts.empty()) {
        out.push_back(check("job", "quota", State::Ok, "no ResourceQuota in " + ns));
    }
    return out;
}

}  // namespace kftrain::doctor
