#include "cli/kube/job_lookup.h"

#include <fmt/format.h>

#include "cli/exit_codes.h"
#include "cli/kube/json_fields.h"
#include "cli/kube/kubectl_errors.h"

namespace kftrain::cli::kube {
namespace {

using manifest::JobKind;
using nlohmann::json;

constexpr JobKind k_kinds[] = {JobKind::PyTorchJob, JobKind::TrainJob};

util::Result<json> parse_object(const std::string& text) {
    json parsed = json::parse(text, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
        return util::error("kubectl printed something that is not a JSON object", k_exit_cluster);
    }
    return parsed;
}

// "pytorchjobs.kubeflow.org,trainjobs.trainer.kubeflow.org" for these kinds.
std::string resources(const std::vector<JobKind>& kinds) {
    std::vector<std::string> names;
    for (JobKind kind : kinds) {
        names.emplace_back(manifest::kind_resource(kind));
    }
    return fmt::format("{}", fmt::join(names, ","));
}

// "PyTorchJob or TrainJob", or the one kind asked for.
std::string kind_names(const std::vector<JobKind>& kinds) {
    std::vector<std::string> names;
    for (JobKind kind : kinds) {
        names.emplace_back(manifest::kind_name(kind));
    }
    return fmt::format("{}", fmt::join(names, " or "));
}

}  // namespace

util::Result<std::vector<json>> list_items(const std::string& list_text) {
    auto parsed = parse_object(list_text);
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
    auto items = list_items(list_text);
    if (!items) {
        return items.error_value();
    }
    for (JobKind kind : k_kinds) {
        for (const auto& item : *items) {
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
        fmt::format("{}: this cluster serves neither PyTorchJobs nor TrainJobs (hint: install "
                    "the Kubeflow Training Operator or Kubeflow Trainer v2, or run on this "
                    "machine with --local)",
                    action),
        k_exit_cluster);
}

util::Result<FoundJob> JobLookup::find(const std::string& name) {
    auto known = m_known.find(name);
    if (known != m_known.end()) {
        return find_in_one(known->second, name, false);
    }
    std::vector<JobKind> kinds = kinds_to_ask();
    if (kinds.size() == 1) {
        return find_in_one(kinds.front(), name, true);
    }
    return find_in_both(name);
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
        {"get", resources(kinds_to_ask()), name, "-o", "json", "--ignore-not-found"});
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        auto missing = unserved_kind(result->err);
        if (!missing) {
            return kubectl_failure(*result, action);
        }
        m_unserved.insert(*missing);
        if (kinds_to_ask().empty()) {
            return neither_served(action);
        }
        return find_in_one(kinds_to_ask().front(), name, true);
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

// Get the job as this kind; looking: the kind is not known yet, so NotFound means no job of
// that name, and a kind the cluster lacks is remembered.
util::Result<FoundJob> JobLookup::find_in_one(JobKind kind, const std::string& name,
                                              bool looking) {
    const std::string action = fmt::format("reading {}/{}", manifest::kind_short_name(kind), name);
    auto result = m_queries.call({"get", manifest::kind_resource(kind), name, "-o", "json"});
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        bool missing = unserved_kind(result->err) == kind;
        if (looking && missing) {
            m_unserved.insert(kind);
            return neither_served("reading " + name);
        }
        bool absent = classify_kubectl_error(result->err) == KubectlFailure::NotFound;
        return looking && absent ? not_found(name) : kubectl_failure(*result, action);
    }
    auto parsed = parse_object(result->out);
    if (!parsed) {
        return util::error(fmt::format("{}: {}", action, parsed.error()), k_exit_cluster);
    }
    m_known[name] = kind;
    return FoundJob{kind, std::move(*parsed)};
}

util::Result<std::vector<json>> JobLookup::list(bool all_namespaces) {
    while (!kinds_to_ask().empty()) {
        std::vector<std::string> args = {"get", resources(kinds_to_ask()), "-o", "json"};
        if (all_namespaces) {
            args.push_back("-A");
        }
        auto result = m_queries.call(args, !all_namespaces);
        if (!result) {
            return result.error_value();
        }
        const std::string action = "listing " + kind_names(kinds_to_ask()) + "s";
        if (result->ok()) {
            auto items = list_items(result->out);
            if (!items) {
                return util::error(fmt::format("{}: {}", action, items.error()), k_exit_cluster);
            }
            return items;
        }
        auto missing = unserved_kind(result->err);
        if (!missing || m_unserved.count(*missing) > 0) {
            return kubectl_failure(*result, action);
        }
        m_unserved.insert(*missing);
    }
    return neither_served("listing jobs");
}

}  // namespace kftrain::cli::kube
