#include "backend/kube/doctor/cluster_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "backend/kube/job_lookup.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/runtimes.h"
#include "doctor/versions.h"
#include "manifest/job_kind.h"
#include "manifest/k8s/quantity.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

using doctor::check;
using doctor::Check;
using doctor::State;
using nlohmann::json;

constexpr const char* k_operator_install =
    "kubectl apply --server-side -k "
    "\"github.com/kubeflow/training-operator.git/manifests/overlays/standalone?ref=v1.9.4\"";
constexpr const char* k_trainer_install =
    "kubectl apply --server-side -k "
    "\"https://github.com/kubeflow/trainer.git/manifests/overlays/manager?ref=v2.3.0\"";
constexpr const char* k_runtimes_install =
    "kubectl apply --server-side -k "
    "\"https://github.com/kubeflow/trainer.git/manifests/overlays/runtimes?ref=v2.3.0\"";
constexpr const char* k_katib_install =
    "kubectl apply -k "
    "\"github.com/kubeflow/katib.git/manifests/v1beta1/installs/katib-standalone?ref=v0.19.0\"";
constexpr const char* k_kueue_install =
    "kubectl apply --server-side -f "
    "https://github.com/kubernetes-sigs/kueue/releases/download/v0.19.2/manifests.yaml";

// kubectl create -o json of several objects prints each as a JSON document of its own: read
// them as one List (a List or one object as it is).
std::optional<json> documents_of(const Read& read) {
    if (!read || !read->ok() || util::json_nests_deeper_than(read->out)) {
        return std::nullopt;
    }
    json items = json::array();
    std::istringstream in(read->out);
    try {
        while ((in >> std::ws) && in.peek() != std::char_traits<char>::eof()) {
            json document;
            in >> document;
            items.push_back(std::move(document));
        }
    } catch (const json::exception&) {
        return std::nullopt;
    }
    if (items.size() == 1) {
        return items.front();
    }
    return json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

// Return a node's allocatable quantity at key; one that kubectl printed as no quantity is 0,
// noted on the node for doctor's warning, never an abort.
double node_quantity(const json& allocatable, const char* key, doctor::Node& node) {
    const json& value = member(allocatable, key);
    if (value.is_string()) {
        const std::string& text = value.get_ref<const std::string&>();
        if (auto read = manifest::read_quantity(text); !read) {
            node.unreadable.push_back(fmt::format("allocatable {} {} (got {})", key, read.error(),
                                                  util::escape_line(util::excerpt(text, 64))));
            return 0;
        }
    }
    return quantity_at(allocatable, key);
}

// Return the warning naming the nodes whose allocatable could not be read; none when all were.
std::optional<Check> unreadable_nodes(const std::vector<doctor::Node>& nodes) {
    std::vector<std::string> found;
    for (const doctor::Node& node : nodes) {
        for (const std::string& what : node.unreadable) {
            found.push_back(fmt::format("node {}: {}", node.name, what));
        }
    }
    if (found.empty()) {
        return std::nullopt;
    }
    return check("cluster", "node resources", State::Warning,
                 fmt::format("{}; counted as 0", fmt::join(found, "; ")), "", false);
}

std::string version_at(const Read& read, const char* which) {
    // `kubectl version -o json` prints the client's version even when the server is away.
    if (!read || util::json_nests_deeper_than(read->out)) {
        return "";
    }
    const json parsed = util::parse_untrusted_json(read->out);
    return string_at(member(parsed, which), "gitVersion");
}

bool has(const std::vector<std::string>& resources, const std::string& name) {
    return std::find(resources.begin(), resources.end(), name) != resources.end();
}

// The kinds, each served or missing with what installs its operator.
void add_kinds(const std::vector<std::string>& resources, const manifest::JobSpec* job,
               std::vector<Check>& out) {
    bool any = false;
    for (manifest::JobKind kind : manifest::k_kinds) {
        const std::string resource = manifest::kind_resource(kind);
        const bool needed = job != nullptr && job->kind == kind;
        const bool trainer = kind == manifest::JobKind::TrainJob;
        if (has(resources, resource)) {
            any = true;
            out.push_back(check("cluster", manifest::kind_name(kind), State::Ok,
                                resource + " served", "", needed));
        } else {
            out.push_back(check(
                "cluster", manifest::kind_name(kind), State::Missing,
                fmt::format("{} not served: {} is not installed", resource,
                            trainer ? "Kubeflow Trainer v2" : "the Kubeflow Training Operator"),
                trainer ? k_trainer_install : k_operator_install, needed));
        }
    }
    if (!any && job == nullptr) {  // with a job, its own kind's check says it
        out.push_back(check("cluster", "job kinds", State::Missing,
                            "none of the five kinds is served: no training operator is installed",
                            std::string(k_operator_install) + ", or " + k_trainer_install));
    }
}

void add_runtimes(const ClusterReads& reads, const manifest::JobSpec* job,
                  std::vector<Check>& out) {
    const bool needed = job != nullptr && job->kind == manifest::JobKind::TrainJob;
    if (!reads.runtimes) {
        return;  // Trainer is not served: its kind says so
    }
    if (!reads.runtimes->ok()) {
        out.push_back(check("cluster", "Trainer runtimes", State::Failed,
                            "cannot be read: " + read_failure(reads.runtimes),
                            "kubectl get clustertrainingruntimes", needed));
        return;
    }
    auto runtimes = parse_runtimes(reads.runtimes->out);
    if (!runtimes) {
        out.push_back(check("cluster", "Trainer runtimes", State::Failed,
                            "cannot be read: " + util::escape_line(runtimes.error()),
                            "kubectl get clustertrainingruntimes", needed));
        return;
    }
    if (runtimes->empty()) {
        out.push_back(check("cluster", "Trainer runtimes", State::Missing,
                            "no ClusterTrainingRuntime or TrainingRuntime", k_runtimes_install,
                            needed));
        return;
    }
    std::vector<std::string> names;
    for (const auto& runtime : *runtimes) {
        names.push_back(runtime.framework.empty()
                            ? runtime.name
                            : fmt::format("{} ({})", runtime.name, runtime.framework));
    }
    out.push_back(check("cluster", "Trainer runtimes", State::Ok,
                        util::escape_line(fmt::format("{}", fmt::join(names, ", "))), "", needed));
}

// An optional piece: served or missing, needed only where the job uses it.
void add_optional(const std::vector<std::string>& resources, const std::string& name,
                  const std::string& resource, const std::string& what, const std::string& fix,
                  bool needed, std::vector<Check>& out) {
    out.push_back(has(resources, resource)
                      ? check("cluster", name, State::Ok, resource + " served", "", needed)
                      : check("cluster", name, State::Missing,
                              fmt::format("{} not served: {}", resource, what), fix, needed));
}

void add_queues(const ClusterReads& reads, const manifest::JobSpec* job, std::vector<Check>& out) {
    if (!reads.queues) {
        return;
    }
    auto queues = read_json(reads.queues);
    std::vector<std::string> names;
    for (const auto& item : queues ? member(*queues, "items") : json()) {
        names.push_back(string_at(member(item, "metadata"), "name"));
    }
    const bool needed = job != nullptr && !job->queue.empty();
    if (!queues) {
        out.push_back(check("cluster", "LocalQueues", State::Failed,
                            "cannot be read: " + read_failure(reads.queues),
                            "kubectl get localqueues -n " + reads.ns, needed));
    } else if (names.empty()) {
        out.push_back(
            check("cluster", "LocalQueues", State::Warning,
                  "Kueue is installed but namespace " + reads.ns + " has no LocalQueue",
                  "docs/queues-and-lifecycle.md (a LocalQueue pointing at a ClusterQueue)", false));
    } else {
        out.push_back(check("cluster", "LocalQueues", State::Ok,
                            util::escape_line(fmt::format("{}", fmt::join(names, ", "))), "",
                            needed));
    }
}

void add_storage(const ClusterReads& reads, std::vector<Check>& out) {
    if (read_forbidden(reads.storage_classes)) {
        out.push_back(check("cluster", "default StorageClass", State::Skipped,
                            "cannot list StorageClasses (forbidden)", "", false));
        return;
    }
    auto classes = read_json(reads.storage_classes);
    if (!classes) {
        out.push_back(check("cluster", "default StorageClass", State::Skipped,
                            "cannot be read: " + read_failure(reads.storage_classes), "", false));
        return;
    }
    for (const auto& item : member(*classes, "items")) {
        const json& annotations = member(member(item, "metadata"), "annotations");
        if (string_at(annotations, "storageclass.kubernetes.io/is-default-class") == "true") {
            out.push_back(check("cluster", "default StorageClass", State::Ok,
                                util::escape_line(string_at(member(item, "metadata"), "name")), "",
                                false));
            return;
        }
    }
    out.push_back(check("cluster", "default StorageClass", State::Warning,
                        "none: a claim must name its storageClassName, or be bound by hand",
                        "kubectl patch storageclass NAME -p '{\"metadata\":{\"annotations\":"
                        "{\"storageclass.kubernetes.io/is-default-class\":\"true\"}}}'",
                        false));
}

}  // namespace

bool server_reachable(const ClusterReads& reads) {
    return !version_at(reads.version, "serverVersion").empty();
}

std::vector<Check> client_checks(const ClusterReads& reads) {
    std::vector<Check> out;
    // Asked alone, so that a server that does not answer, or asks for credentials, cannot
    // hide it.
    const std::string client = version_at(reads.client, "clientVersion");
    if (client.empty()) {
        out.push_back(check("client", "kubectl", reads.client ? State::Failed : State::Missing,
                            read_failure(reads.client),
                            "install kubectl (Debian: apt-get install kubernetes-client) or "
                            "point KFTRAIN_KUBECTL at it"));
        return out;
    }
    out.push_back(check("client", "kubectl", State::Ok, util::escape_line(client)));
    if (reads.context && reads.context->ok()) {
        std::string server =
            reads.server && reads.server->ok() ? util::trim(reads.server->out) : "";
        out.push_back(check("client", "kubeconfig", State::Ok,
                            util::escape_line("context " + util::trim(reads.context->out) +
                                              (server.empty() ? "" : ", server " + server))));
    } else {
        out.push_back(check("client", "kubeconfig", State::Failed,
                            "no current context: " + read_failure(reads.context),
                            "kubectl config use-context NAME, or give --kubeconfig and --context"));
    }
    const std::string server = version_at(reads.version, "serverVersion");
    if (server.empty()) {
        out.push_back(check(
            "client", "API server", State::Failed, "not reachable: " + read_failure(reads.version),
            "kubectl cluster-info (is the cluster up, the context the right one?)"));
        return out;
    }
    out.push_back(check("client", "API server", State::Ok,
                        util::escape_line("reachable, Kubernetes " + server)));
    auto client_version = doctor::parse_version(client);
    auto server_version = doctor::parse_version(server);
    if (client_version && server_version) {
        out.push_back(doctor::version_skew_check(*client_version, *server_version));
    }
    return out;
}

std::vector<Check> cluster_checks(const ClusterReads& reads, const manifest::JobSpec* job) {
    std::vector<Check> out;
    if (reads.namespace_ && reads.namespace_->ok()) {
        out.push_back(check("cluster", "namespace " + reads.ns, State::Ok, "exists"));
    } else if (read_forbidden(reads.namespace_)) {
        out.push_back(check("cluster", "namespace " + reads.ns, State::Skipped,
                            "cannot read namespaces (forbidden)", "", false));
    } else {
        out.push_back(check("cluster", "namespace " + reads.ns, State::Missing,
                            read_failure(reads.namespace_),
                            "kubectl create namespace " + reads.ns));
    }
    const auto resources = served_resources(reads);
    add_kinds(resources, job, out);
    add_runtimes(reads, job, out);
    const bool tunes = job != nullptr && !job->tune.params.empty();
    add_optional(resources, "Katib", "experiments.kubeflow.org", "kftrain tune needs Katib",
                 k_katib_install, tunes, out);
    add_optional(resources, "Kueue", "localqueues.kueue.x-k8s.io", "submit --queue needs Kueue",
                 k_kueue_install, job != nullptr && !job->queue.empty(), out);
    add_queues(reads, job, out);
    add_optional(resources, "Prometheus Operator", "podmonitors.monitoring.coreos.com",
                 "render --pod-monitor's PodMonitor needs it (docs/metrics.md)",
                 "https://prometheus-operator.dev/docs/getting-started/installation/", false, out);
    add_storage(reads, out);
    const auto nodes = read_nodes(reads);
    if (!nodes.empty()) {
        out.push_back(check("cluster", "nodes", State::Ok, doctor::nodes_summary(nodes)));
        if (auto warning = unreadable_nodes(nodes)) {
            out.push_back(*warning);
        }
    } else {
        out.push_back(check("cluster", "nodes", State::Skipped,
                            read_forbidden(reads.nodes)
                                ? "cannot list nodes (forbidden)"
                                : "cannot be read: " + read_failure(reads.nodes),
                            "", false));
    }
    return out;
}

std::vector<Check> permission_checks(const ClusterReads& reads,
                                     const std::vector<doctor::Access>& accesses) {
    auto answer = documents_of(reads.access);
    if (!answer) {
        return {check("permissions", "access reviews", State::Failed,
                      "the API server did not answer them: " + read_failure(reads.access),
                      "kubectl auth can-i --list -n " + reads.ns)};
    }
    return doctor::access_checks(accesses, *answer, reads.ns);
}

std::vector<doctor::Node> read_nodes(const ClusterReads& reads) {
    std::vector<doctor::Node> nodes;
    auto list = read_json(reads.nodes);
    for (const auto& item : list ? member(*list, "items") : json()) {
        doctor::Node node;
        const json& metadata = member(item, "metadata");
        const json& status = member(item, "status");
        const json& allocatable = member(status, "allocatable");
        node.name = util::escape_line(string_at(metadata, "name"));
        node.cpu = node_quantity(allocatable, "cpu", node);
        node.memory = node_quantity(allocatable, "memory", node);
        node.gpus = static_cast<long long>(node_quantity(allocatable, "nvidia.com/gpu", node));
        node.gpu_product =
            util::escape_line(string_at(member(metadata, "labels"), "nvidia.com/gpu.product"));
        copy_strings(member(metadata, "labels"), node.labels);
        bool ready = false;
        for (const auto& condition : member(status, "conditions")) {
            ready = ready || (string_at(condition, "type") == "Ready" &&
                              string_at(condition, "status") == "True");
        }
        const json& spec = member(item, "spec");
        node.schedulable = ready && !(member(spec, "unschedulable") == json(true));
        for (const auto& taint : member(spec, "taints")) {
            node.taints.push_back(
                {string_at(taint, "key"), string_at(taint, "value"), string_at(taint, "effect")});
        }
        nodes.push_back(std::move(node));
    }
    return nodes;
}

}  // namespace kftrain::backend::kube
