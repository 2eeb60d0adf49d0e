#include "backend/kube/queries.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "backend/kube/kubectl_errors.h"
#include "backend/kube/status/pods.h"
#include "job/exit_codes.h"
#include "progress/progress_line.h"
#include "progress/progress_reader.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using util::split_lines;

constexpr int k_progress_tail = 50;  // lines of rank 0's log searched for progress

}  // namespace

util::Error kubectl_failure(const KubectlResult& result, const std::string& action) {
    int code = classify_kubectl_error(result.err) == KubectlFailure::NotFound ? k_exit_not_found
                                                                              : k_exit_cluster;
    return util::error(explain_kubectl_error(result.err, action), code);
}

util::Result<std::vector<std::string>> object_names(KubeQueries& queries,
                                                    const std::string& resource) {
    auto listed = queries.run({"get", resource, "-o", "name"}, "listing " + resource);
    if (!listed) {
        return listed.error_value();
    }
    std::vector<std::string> names;
    std::istringstream lines(*listed);
    for (std::string line; std::getline(lines, line);) {
        const size_t slash = line.rfind('/');
        if (slash != std::string::npos && slash + 1 < line.size()) {
            names.push_back(line.substr(slash + 1));
        }
    }
    return names;
}

KubeQueries::KubeQueries(KubectlRunner& kubectl, std::string ns)
    : m_kubectl(kubectl), m_namespace(std::move(ns)) {}

std::vector<std::string> KubeQueries::namespace_args() const {
    if (m_namespace.empty()) {
        return {};
    }
    return {"-n", m_namespace};
}

std::string KubeQueries::namespace_text() const {
    return m_namespace.empty() ? "the current namespace" : "namespace " + m_namespace;
}

util::Result<KubectlResult> KubeQueries::call(const std::vector<std::string>& args,
                                              bool in_namespace, const std::string& input) {
    std::vector<std::string> full = args;
    if (in_namespace) {  // before a "--", after which kubectl reads only names
        auto ns = namespace_args();
        full.insert(std::find(full.begin(), full.end(), "--"), ns.begin(), ns.end());
    }
    auto result = m_kubectl.run(full, input);
    if (!result) {
        return util::error(result.error(), k_exit_cluster);
    }
    return result;
}

util::Result<std::string> KubeQueries::run(const std::vector<std::string>& args,
                                           const std::string& action, const std::string& input) {
    auto result = call(args, true, input);
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        return kubectl_failure(*result, action);
    }
    return std::move(result->out);
}

util::Result<std::vector<job::ReplicaStatus>> KubeQueries::pods_by(const std::string& job,
                                                                   const std::string& selector) {
    auto out = run({"get", "pods", "-l", selector, "-o", "json"}, "listing the pods of " + job);
    if (!out) {
        return out.error_value();
    }
    return parse_pods(*out, job);
}

util::Result<KubeQueries::PodListing> KubeQueries::pods(const std::string& job,
                                                        const std::vector<std::string>& selectors) {
    for (const auto& selector : selectors) {
        auto found = pods_by(job, selector);
        if (!found) {
            return found.error_value();
        }
        if (!found->empty()) {
            return PodListing{std::move(*found), selector};
        }
    }
    return PodListing{};
}

std::vector<KubeEvent> KubeQueries::events(const std::set<std::string>& objects,
                                           const std::string& since) {
    auto out = run({"get", "events", "-o", "json"}, "reading events");
    if (!out) {
        return {};
    }
    return parse_events(*out, objects, since);
}

util::Result<KubeQueries::LogReading> KubeQueries::progress(const std::string& pod,
                                                            const std::string& container) {
    auto out = run({"logs", pod, "-c", container, "--tail=" + std::to_string(k_progress_tail)},
                   "reading the log of " + pod);
    if (!out) {
        return out.error_value();
    }
    // Every line and every drawing of a bar redrawn with carriage returns, in order: what the
    // lead prints of its own (a tqdm bar, Keras, the Trainer) is progress too.
    progress::ProgressReader reader;
    reader.take_output(*out);
    return LogReading{reader.progress(), progress::last_checkpoint(split_lines(*out))};
}

bool KubeQueries::serves(manifest::JobKind kind) {
    const std::string resource = manifest::kind_resource(kind);
    const std::string group = resource.substr(resource.find('.') + 1);
    auto result = call({"api-resources", "--api-group=" + group, "-o", "name"}, false);
    if (!result || !result->ok()) {
        return false;
    }
    for (const auto& line : split_lines(result->out)) {
        if (line == resource) {
            return true;
        }
    }
    return false;
}

}  // namespace kftrain::backend::kube
