#include "backend/kube/doctor/cluster_reads.h"

#include <algorithm>
#include <functional>
#include <future>

#include "backend/kube/kubectl_errors.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

// Run each call on a thread of its own and wait for all.
void run_side_by_side(const std::vector<std::function<void()>>& calls) {
    std::vector<std::future<void>> running;
    running.reserve(calls.size());
    for (const auto& call : calls) {
        running.push_back(std::async(std::launch::async, call));
    }
    for (auto& call : running) {
        call.get();
    }
}

bool served(const std::vector<std::string>& resources, const std::string& name) {
    return std::find(resources.begin(), resources.end(), name) != resources.end();
}

}  // namespace

std::optional<nlohmann::json> read_json(const Read& read) {
    if (!read || !read->ok() || util::json_nests_deeper_than(read->out)) {
        return std::nullopt;
    }
    nlohmann::json parsed = util::parse_untrusted_json(read->out);
    return parsed.is_discarded() ? std::nullopt : std::optional<nlohmann::json>(parsed);
}

std::string read_failure(const Read& read) {
    if (!read) {
        return util::escape_line(read.error());
    }
    const std::string text = util::trim(read->err.empty() ? read->out : read->err);
    return util::escape_line(util::excerpt(text, 160));
}

bool read_forbidden(const Read& read) {
    return read && !read->ok() && classify_kubectl_error(read->err) == KubectlFailure::Forbidden;
}

std::vector<std::string> served_resources(const ClusterReads& reads) {
    std::vector<std::string> out;
    // api-resources exits 1 when one aggregated API cannot be reached, listing the others.
    if (reads.resources) {
        for (const std::string& line : util::split_lines(reads.resources->out)) {
            if (!util::trim(line).empty()) {
                out.push_back(util::trim(line));
            }
        }
    }
    return out;
}

std::vector<std::string> quota_read_args(const std::string& ns) {
    std::vector<std::string> args = {"get", "resourcequotas,limitranges", "-o", "json"};
    if (!ns.empty()) {
        args.insert(args.end(), {"--namespace", ns});
    }
    return args;
}

ClusterReads read_cluster(KubectlRunner& kubectl, const ReadPlan& plan) {
    ClusterReads reads;
    reads.ns = plan.ns;
    const std::vector<std::string> in_ns = {"-n", plan.ns};
    auto call = [&](Read& into, std::vector<std::string> args, bool namespaced,
                    const std::string& input = "") {
        return [&into, &kubectl, &in_ns, args, namespaced, input]() mutable {
            if (namespaced) {
                args.insert(args.end(), in_ns.begin(), in_ns.end());
            }
            into = kubectl.run(args, input);
        };
    };
    std::vector<std::function<void()>> first = {
        call(reads.client, {"version", "--client", "-o", "json"}, false),
        call(reads.version, {"version", "-o", "json"}, false),
        call(reads.context, {"config", "current-context"}, false),
        call(reads.server,
             {"config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"}, false),
        call(reads.namespace_, {"get", "namespace", plan.ns, "-o", "name"}, false),
        call(reads.resources, {"api-resources", "-o", "name"}, false),
        call(reads.nodes, {"get", "nodes", "-o", "json"}, false),
        call(reads.storage_classes, {"get", "storageclasses", "-o", "json"}, false),
        call(reads.access, {"create", "-f", "-", "-o", "json"}, false,
             util::json_text(plan.access_reviews)),
    };
    if (plan.job) {
        first.push_back(call(reads.claims, {"get", "persistentvolumeclaims", "-o", "json"}, true));
        first.push_back(call(reads.quotas, quota_read_args(plan.ns), false));
    }
    if (!plan.secrets.empty()) {
        std::vector<std::string> args = {"get", "secrets"};
        args.insert(args.end(), plan.secrets.begin(), plan.secrets.end());
        args.insert(args.end(), {"-o", "name", "--ignore-not-found"});
        first.push_back(call(reads.secrets, args, true));
    }
    run_side_by_side(first);
    const auto resources = served_resources(reads);
    std::vector<std::function<void()>> second;
    if (served(resources, "clustertrainingruntimes.trainer.kubeflow.org")) {
        second.push_back(call(reads.runtimes,
                              {"get",
                               "clustertrainingruntimes.trainer.kubeflow.org,"
                               "trainingruntimes.trainer.kubeflow.org",
                               "-o", "json"},
                              true));
    }
    if (served(resources, "localqueues.kueue.x-k8s.io")) {
        second.push_back(
            call(reads.queues, {"get", "localqueues.kueue.x-k8s.io", "-o", "json"}, true));
        if (plan.job) {  // a queued job's ClusterQueue quota
            second.push_back(call(reads.cluster_queues,
                                  {"get", "clusterqueues.kueue.x-k8s.io", "-o", "json"}, false));
        }
    }
    run_side_by_side(second);
    return reads;
}

}  // namespace kftrain::backend::kube
