#include "backend/kube/job_lookup.h"

#include <fmt/format.h>

#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl_errors.h"
#include "job/exit_codes.h"

namespace kftrain::backend::kube {
namespace {

using manifest::JobKind;
using nlohmann::json;

using manifest::k_kinds;

// "pytorchjobs.kubeflow.org,trainjobs.trainer.kubeflow.org,..." for these kinds.
std::string resources(const std::vector<JobKind>& kinds) {
    std::vector<std::string> names;
    for (JobKind kind : kinds) {
        names.emplace_back(manifest::kind_resource(kind));
    }
    return fmt::format("{}", fmt::join(names, ","));
}

// "PyTorchJob, TrainJob or JAXJob" (with "s" after each: plural), or the one kind asked for.
std::string kind_names(const std::vector<JobKind>& kinds, const char* suffix = "",
                       const char* last_joint = " or ") {
    std::string out;
    for (size_t i = 0; i < kinds.size(); ++i) {
        if (i > 0) {
            out += i + 1 == kinds.size() ? last_joint : ", ";
        }
        out += manifest::kind_name(kinds[i]);
        out += suffix;
    }
    return out;
}

}  // namespace

util::Result<std::vector<json>> list_items(const std::string& list_text) {
    auto parsed = parse_json_object(list_text);
    if (!parsed) {
        return parsed.error_value();
    }
    const json& items = member(*parsed, "items");
    if (!items.is_array()) {
        return util::error("kubectl printed a list without items", k_exit_cluster);
    }
    return std::vector<json>(items.begin(), items.end());
}

util::Result<std::optional<FoundJob>> pick_found_job(const std::string& list_text) {
    if (list_text.find_first_not_of(" \t\r\n") == std::string::npos) {
        return std::optional<FoundJob>();  // --ignore-not-found: neither kind has it
    }
    auto parsed = parse_json_object(list_text);
    if (!parsed) {
        return parsed.error_value();
    }
    // A List, as kubectl prints a get of several resources; one object is read as well.
    const json& listed = member(*parsed, "items");
    std::vector<json> items = listed.is_array() ? std::vector<json>(listed.begin(), listed.end())
                                                : std::vector<json>{*parsed};
    for (JobKind kind : k_kinds) {
        for (const auto& item : items) {
            if (string_at(item, "kind") == manifest::kind_name(kind)) {
                return std::optional<FoundJob>(FoundJob{kind, item});
            }
        }
    }
    return std::optional<FoundJob>();
}

JobLookup::JobLookup(KubeQueries& queries) : m_queries(queries) {}

std::vector<JobKind> JobLookup::kinds_to_ask() const {
    std::vector<JobKind> kinds;
    for (JobKind kind : k_kinds) {
        if (m_unserved.count(kind) == 0) {
            kinds.push_back(kind);
        }
    }
    return kinds;
}

util::Error JobLookup::not_found(const std::string& name) const {
    return util::error(fmt::format("no {} named {} in {} (hint: check the name and the "
                                   "namespace (-n))",
                                   kind_names(kinds_to_ask()), name, m_queries.namespace_text()),
                       k_exit_not_found);
}

util::Error JobLookup::neither_served(const std::string& action) const {
    return util::error(
        fmt::format("{}: this cluster serves no PyTorchJobs, TFJobs, XGBoostJobs, JAXJobs or "
                    "TrainJobs "
                    "(hint: install the Kubeflow Training Operator or Kubeflow Trainer v2, or "
                    "run on this machine with --local)",
                    action),
        k_exit_cluster);
}

util::Result<FoundJob> JobLookup::find(const std::string& name) {
    auto known = m_known.find(name);
    if (known != m_known.end()) {
        return find_in_one(known->second, name, false);
    }
    return kinds_to_ask().size() <= 1 ? find_in_each(name) : find_in_both(name);
}

util::Result<JobKind> JobLookup::kind(const std::string& name) {
    auto known = m_known.find(name);
    if (known != m_known.end()) {
        return known->second;
    }
    auto found = find(name);
    if (!found) {
        return found.error_value();
    }
    return found->kind;
}

util::Result<FoundJob> JobLookup::find_in_both(const std::string& name) {
    const std::string action = "reading " + name;
    auto result = m_queries.call(
        {"get", resources(kinds_to_ask()), "-o", "json", "--ignore-not-found", "--", name});
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        auto missing = unserved_kind(result->err);
        if (missing) {
            m_unserved.insert(*missing);
            return find_in_each(name);
        }
        if (classify_kubectl_error(result->err) == KubectlFailure::Forbidden) {
            return find_in_each(name);  // RBAC may let one kind be read and not the other
        }
        return kubectl_failure(*result, action);
    }
    auto picked = pick_found_job(result->out);
    if (!picked) {
        return util::error(fmt::format("{}: {}", action, picked.error()), k_exit_cluster);
    }
    if (!*picked) {
        return not_found(name);
    }
    m_known[name] = (*picked)->kind;
    return std::move(**picked);
}

// Get the job as each kind the cluster serves, one call each: the job of the first that has
// it; else the first failure other than NotFound; else not found.
util::Result<FoundJob> JobLookup::find_in_each(const std::string& name) {
    std::optional<util::Error> failure;
    for (JobKind kind : kinds_to_ask()) {
        auto found = find_in_one(kind, name, true);
        if (found) {
            return found;
        }
        if (!failure && found.error_code(k_exit_cluster) != k_exit_not_found) {
            failure = found.error_value();
        }
    }
    if (failure) {
        return *failure;
    }
    return kinds_to_ask().empty() ? neither_served("reading " + name) : not_found(name);
}

// Get the job as this kind; looking: the kind is not known yet, so NotFound means no job of
// that name, and a kind the cluster lacks is remembered.
util::Result<FoundJob> JobLookup::find_in_one(JobKind kind, const std::string& name, bool looking) {
    const std::string action = fmt::format("reading {}/{}", manifest::kind_short_name(kind), name);
    auto result = m_queries.call({"get", manifest::kind_resource(kind), "-o", "json", "--", name});
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        if (looking && unserved_kind(result->err) == kind) {
            m_unserved.insert(kind);
            return kinds_to_ask().empty() ? neither_served("reading " + name) : not_found(name);
        }
        bool absent = classify_kubectl_error(result->err) == KubectlFailure::NotFound;
        return looking && absent ? not_found(name) : kubectl_failure(*result, action);
    }
    auto parsed = parse_json_object(result->out);
    if (!parsed) {
        return util::error(fmt::format("{}: {}", action, parsed.error()), k_exit_cluster);
    }
    m_known[name] = kind;
    return FoundJob{kind, std::move(*parsed)};
}

// One `get` of these kinds' resources, in every namespace when all_namespaces.
util::Result<KubectlResult> JobLookup::get_list(const std::vector<JobKind>& kinds,
                                                bool all_namespaces) {
    std::vector<std::string> args = {"get", resources(kinds), "-o", "json"};
    if (all_namespaces) {
        args.push_back("-A");
    }
    return m_queries.call(args, !all_namespaces);
}

util::Result<std::vector<json>> JobLookup::list(bool all_namespaces) {
    while (!kinds_to_ask().empty()) {
        auto result = get_list(kinds_to_ask(), all_namespaces);
        if (!result) {
            return result.error_value();
        }
        const std::string action = "listing " + kind_names(kinds_to_ask(), "s", " and ");
        if (result->ok()) {
            auto items = list_items(result->out);
            if (!items) {
                return util::error(fmt::format("{}: {}", action, items.error()), k_exit_cluster);
            }
            return items;
        }
        auto missing = unserved_kind(result->err);
        if (missing && m_unserved.count(*missing) == 0) {
            m_unserved.insert(*missing);
            continue;
        }
        bool forbidden = classify_kubectl_error(result->err) == KubectlFailure::Forbidden;
        return forbidden && kinds_to_ask().size() > 1 ? list_each(all_namespaces, *result)
                                                      : kubectl_failure(*result, action);
    }
    return neither_served("listing jobs");
}

// List each kind alone and keep those RBAC lets one read; the first failure when none.
util::Result<std::vector<json>> JobLookup::list_each(bool all_namespaces,
                                                     const KubectlResult& failure) {
    std::vector<json> items;
    bool listed = false;
    for (JobKind kind : kinds_to_ask()) {
        auto result = get_list({kind}, all_namespaces);
        if (!result || !result->ok()) {
            continue;
        }
        auto some = list_items(result->out);
        if (some) {
            listed = true;
            items.insert(items.end(), some->begin(), some->end());
        }
    }
    if (!listed) {
        return kubectl_failure(failure, "listing " + kind_names(kinds_to_ask(), "s", " and "));
    }
    return items;
}

}  // namespace kftrain::backend::kube
