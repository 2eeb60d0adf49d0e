// kftrain doctor's reading of a cluster, for what the minicluster cannot show: GPU nodes, Kueue
// with its LocalQueues, Katib, and a job that needs them. The answers are shaped as kubectl
// prints them (api-resources -o name, get -o json); the real cluster's are in doctor_e2e.cpp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "backend/kube/doctor/cluster_checks.h"
#include "support/jobs.h"
#include "support/test_data.h"

using namespace kftrain;
using backend::kube::ClusterReads;
using backend::kube::KubectlResult;
using nlohmann::json;

namespace {

KubectlResult ok(const std::string& out) {
    return KubectlResult{0, out, "", false};
}

KubectlResult failed(const std::string& err) {
    return KubectlResult{1, "", err, false};
}

// A GPU cluster with the Training Operator, Trainer, Katib and Kueue, and one LocalQueue.
ClusterReads gpu_cluster() {
    ClusterReads reads;
    reads.ns = "team-a";
    reads.client = ok(R"({"clientVersion":{"major":"1","minor":"32","gitVersion":"v1.32.3"}})");
    reads.version = ok(R"({"clientVersion":{"major":"1","minor":"32","gitVersion":"v1.32.3"},
        "kustomizeVersion":"v5.5.0","serverVersion":{"major":"1","minor":"31","gitVersion":"v1.31.4"}})");
    reads.context = ok("gpu-cluster\n");
    reads.server = ok("https://gpu.example:6443");
    reads.namespace_ = ok("namespace/team-a\n");
    reads.resources =
        ok("bindings\nconfigmaps\nnamespaces\nnodes\npods\npodtemplates\nsecrets\n"
           "experiments.kubeflow.org\njaxjobs.kubeflow.org\npytorchjobs.kubeflow.org\n"
           "suggestions.kubeflow.org\ntfjobs.kubeflow.org\ntrials.kubeflow.org\n"
           "xgboostjobs.kubeflow.org\nclusterqueues.kueue.x-k8s.io\nlocalqueues.kueue.x-k8s.io\n"
           "workloads.kueue.x-k8s.io\nclustertrainingruntimes.trainer.kubeflow.org\n"
           "trainingruntimes.trainer.kubeflow.org\ntrainjobs.trainer.kubeflow.org\n");
    const json gpu_node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata",
         {{"name", "gpu-a"},
          {"labels",
           {{"kubernetes.io/hostname", "gpu-a"},
            {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}}}},
        {"spec",
         {{"taints",
           {{{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}}}}}},
        {"status",
         {{"allocatable",
           {{"cpu", "95500m"},
            {"memory", "1056466724Ki"},
            {"nvidia.com/gpu", "8"},
            {"pods", "110"}}},
          {"capacity", {{"cpu", "96"}, {"memory", "1056569124Ki"}, {"nvidia.com/gpu", "8"}}},
          {"conditions", {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}}}}};
    const json cpu_node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", {{"name", "cpu-a"}, {"labels", {{"kubernetes.io/hostname", "cpu-a"}}}}},
        {"spec", json::object()},
        {"status",
         {{"allocatable", {{"cpu", "7910m"}, {"memory", "31Gi"}, {"pods", "110"}}},
          {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
    reads.nodes =
        ok(json({{"apiVersion", "v1"}, {"kind", "List"}, {"items", {gpu_node, cpu_node}}}).dump());
    reads.storage_classes = ok(R"({"apiVersion":"v1","items":[{"kind":"StorageClass",
        "metadata":{"name":"fast","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
        "provisioner":"pd.csi.storage.gke.io"}],"kind":"List"})");
    reads.runtimes = ok(R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":
        "trainer.kubeflow.org/v1alpha1","kind":"ClusterTrainingRuntime","metadata":{"name":
        "torch-distributed","labels":{"trainer.kubeflow.org/framework":"torch"}},"spec":{"mlPolicy":
        {"numNodes":1,"torch":{"numProcPerNode":"auto"}}}}]})");
    reads.queues = ok(R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":
        "kueue.x-k8s.io/v1beta1","kind":"LocalQueue","metadata":{"name":"team-queue",
        "namespace":"team-a"},"spec":{"clusterQueue":"gpus"}}]})");
    reads.claims = ok(R"({"apiVersion":"v1","kind":"List","items":[{"kind":"PersistentVolumeClaim",
        "metadata":{"name":"datasets"},"status":{"phase":"Bound"}},{"kind":"PersistentVolumeClaim",
        "metadata":{"name":"fresh"},"status":{"phase":"Pending"}}]})");
    reads.secrets = ok("secret/registry\n");
    return reads;
}

std::map<std::string, doctor::Check> by_name(const std::vector<doctor::Check>& checks) {
    std::map<std::string, doctor::Check> out;
    for (const auto& check : checks) {
        out.emplace(check.name, check);
    }
    return out;
}

}  // namespace

TEST_CASE("doctor reads a GPU cluster with Katib and Kueue, and a job that needs them all",
          "[doctor][cluster]") {
    const ClusterReads reads = gpu_cluster();
    auto client = by_name(backend::kube::client_checks(reads));
    CHECK(client.at("kubeconfig").found == "context gpu-cluster, server https://gpu.example:6443");
    CHECK(client.at("API server").found == "reachable, Kubernetes v1.31.4");
    CHECK(client.at("version skew").state == doctor::State::Ok);

    const auto spec = test::load_job(
        "name: big\nimage: registry.example/train:1\nimagePullSecrets: [registry, missing-one]\n"
        "replicas: 4\nresources: {cpu: \"16\", memory: 64Gi, gpus: 2}\nqueue: team-queue\n"
        "tolerations:\n  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n"
        "volumes:\n  - {name: data, claim: datasets, mountPath: /data}\n"
        "  - {name: out, claim: fresh, mountPath: /out}\n"
        "tune:\n  params:\n    lr: 0.001:0.1:log\n");
    auto cluster = by_name(backend::kube::cluster_checks(reads, &spec));
    CHECK(cluster.at("PyTorchJob").state == doctor::State::Ok);
    CHECK(cluster.at("PyTorchJob").needed);
    CHECK(cluster.at("Katib").state == doctor::State::Ok);
    CHECK(cluster.at("Katib").needed);  // the job file has a search
    CHECK(cluster.at("Kueue").needed);  // and a queue
    CHECK(cluster.at("LocalQueues").found == "team-queue");
    CHECK(cluster.at("Trainer runtimes").found == "torch-distributed (torch)");
    CHECK(cluster.at("default StorageClass").found == "fast");
    CHECK(cluster.at("Prometheus Operator").state == doctor::State::Missing);
    CHECK_FALSE(cluster.at("Prometheus Operator").needed);
    CHECK(cluster.at("nodes").found ==
          "2 nodes: 103.41 CPUs, 1038.5 GiB memory, 8 GPUs (8 x NVIDIA-H100-80GB-HBM3)");

    auto job = by_name(backend::kube::job_checks(reads, spec));
    CHECK(job.at("LocalQueue team-queue").state == doctor::State::Ok);
    CHECK(job.at("claim datasets").state == doctor::State::Ok);
    CHECK(job.at("claim fresh").state == doctor::State::Failed);
    CHECK(job.at("claim fresh").found == "Pending: the pods that mount it wait until it is Bound");
    CHECK(job.at("secret registry").state == doctor::State::Ok);
    CHECK(job.at("secret missing-one").state == doctor::State::Missing);
    CHECK(job.count("metrics") == 0);  // it serves none
    CHECK(job.at("fits on a node").state == doctor::State::Ok);
    CHECK(job.at("fits on a node").found ==
          "each replica asks 16 CPUs, 64.0 GiB memory, 2 GPUs; fits on gpu-a (95.5 CPUs, "
          "1007.5 GiB memory, 8 GPUs)");
}

TEST_CASE("doctor skips what a namespaced user may not read, and says so", "[doctor][cluster]") {
    ClusterReads reads = gpu_cluster();
    const std::string forbidden =
        "Error from server (Forbidden): nodes is forbidden: User \"system:serviceaccount:team-a:"
        "viewer\" cannot list resource \"nodes\" in API group \"\" at the cluster scope\n";
    reads.nodes = failed(forbidden);
    reads.storage_classes = failed(forbidden);
    reads.namespace_ = failed(forbidden);
    auto cluster = by_name(backend::kube::cluster_checks(reads, nullptr));
    CHECK(cluster.at("nodes").state == doctor::State::Skipped);
    CHECK(cluster.at("nodes").found == "cannot list nodes (forbidden)");
    CHECK(cluster.at("namespace team-a").state == doctor::State::Skipped);
    CHECK_FALSE(doctor::fails(cluster.at("nodes")));
    const auto spec = test::load_job("name: small\nresources: {cpu: \"1\"}\n");
    auto job = by_name(backend::kube::job_checks(reads, spec));
    CHECK(job.at("fits on a node").state == doctor::State::Skipped);
}

TEST_CASE("doctor without kubectl names it and what installs it", "[doctor][cluster]") {
    ClusterReads reads;
    reads.ns = "default";
    reads.client = util::error(
        "kubectl not found (kubectl): install kubectl or point KFTRAIN_KUBECTL at it, or run the "
        "job on this machine with --local");
    auto checks = backend::kube::client_checks(reads);
    REQUIRE(checks.size() == 1);
    CHECK(checks[0].state == doctor::State::Missing);
    CHECK(checks[0].fix ==
          "install kubectl (Debian: apt-get install kubernetes-client) or point KFTRAIN_KUBECTL "
          "at it");
    CHECK_FALSE(backend::kube::server_reachable(reads));
}

TEST_CASE("doctor reads the access reviews kubectl create prints one document each",
          "[doctor][cluster]") {
    ClusterReads reads = gpu_cluster();
    const auto accesses = doctor::needed_access({}, false, false);
    const json reviews = doctor::access_reviews(accesses, "team-a");
    std::string printed;
    for (json review : reviews["items"]) {
        const json& asked = review["spec"]["resourceAttributes"];
        const bool denied = asked["resource"] == "configmaps" && asked["verb"] == "create";
        review["status"] = {{"allowed", !denied}};
        printed += review.dump(4) + "\n";
    }
    reads.access = ok(printed);
    auto checks = by_name(backend::kube::permission_checks(reads, accesses));
    CHECK(checks.at("configmaps").state == doctor::State::Failed);
    CHECK(checks.at("configmaps").found ==
          "create denied (needed by submit of a job that ships code)");
    CHECK(checks.at("pods/exec").state == doctor::State::Ok);
    CHECK_FALSE(checks.at("pods/exec").needed);  // data staging only
}

TEST_CASE("doctor survives an access-review List whose items is no list", "[doctor][cluster]") {
    ClusterReads reads = gpu_cluster();
    const auto accesses = doctor::needed_access({}, false, false);
    for (const char* printed : {R"({"apiVersion":"v1","kind":"List","items":"oops"})",
                                R"({"apiVersion":"v1","kind":"List","items":{"0":{}}})",
                                R"({"apiVersion":"v1","kind":["List"],"items":[]})"}) {
        INFO(printed);
        reads.access = ok(printed);
        auto checks = by_name(backend::kube::permission_checks(reads, accesses));
        CHECK(checks.at("configmaps").state == doctor::State::Failed);
        CHECK(checks.at("configmaps").found ==
              "the API server's answer to the access reviews could not be read");
    }
}

TEST_CASE("doctor warns of a node whose allocatable is no quantity, never an abort",
          "[doctor][cluster]") {
    ClusterReads reads = gpu_cluster();
    const json node = {{"kind", "Node"},
                       {"metadata", {{"name", "odd"}}},
                       {"status",
                        {{"allocatable",
                          {{"cpu", "1" + std::string(400, '0')},
                           {"memory", "0." + std::string(400, '0') + "1"},
                           {"nvidia.com/gpu", 1e300}}},
                         {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
    reads.nodes = ok(json({{"kind", "List"}, {"items", {node}}}).dump());
    auto cluster = by_name(backend::kube::cluster_checks(reads, nullptr));
    CHECK(cluster.at("nodes").found == "1 node: 0 CPUs, 0.0 GiB memory, no GPUs");
    const std::string range =
        "is out of range: a quantity is below 2^63 base units (8Ei bytes) and no finer than 1n";
    CHECK(cluster.at("node resources").state == doctor::State::Warning);
    CHECK(cluster.at("node resources").found ==
          "node odd: allocatable cpu " + range + " (got 1" + std::string(63, '0') +
              "...); node odd: allocatable memory " + range + " (got 0." + std::string(62, '0') +
              "...); counted as 0");
}

TEST_CASE("doctor says how a job's metrics are scraped: a PodMonitor where it is served",
          "[doctor][cluster]") {
    ClusterReads reads = gpu_cluster();
    const auto spec = test::load_job(
        "name: metered\ncommand: [python3, train.py]\nmetrics: {port: 8000, path: /stats}\n");
    auto without = by_name(backend::kube::job_checks(reads, spec));
    CHECK(without.at("metrics").state == doctor::State::Warning);
    CHECK(without.at("metrics").found ==
          "metrics at :8000/stats; no PodMonitor kind here: only a Prometheus that reads the "
          "prometheus.io/ annotations scrapes it");
    reads.resources->out += "podmonitors.monitoring.coreos.com\n";
    auto with = by_name(backend::kube::job_checks(reads, spec));
    CHECK(with.at("metrics").state == doctor::State::Ok);
}

TEST_CASE("doctor -f holds a job to each ResourceQuota of its namespace", "[doctor][cluster]") {
    ClusterReads reads = gpu_cluster();
    reads.quotas = ok(test::read_test_data("kube/quota-limitrange-v120.json"));
    auto too_big =
        by_name(backend::kube::job_checks(reads, test::load_job("name: a\nreplicas: 4\n")));
    CHECK(too_big.at("quota team-quota").state == doctor::State::Failed);
    CHECK(doctor::fails(too_big.at("quota team-quota")));
    auto waits = by_name(backend::kube::job_checks(
        reads, test::load_job("name: a\nreplicas: 2\nresources: {cpu: 300m}\n")));
    CHECK(waits.at("quota team-quota").state == doctor::State::Warning);
    CHECK_FALSE(doctor::fails(waits.at("quota team-quota")));
    // A user who may not read quotas is told they were not checked: never "fits".
    reads.quotas = failed(
        "Error from server (Forbidden): resourcequotas is forbidden: User \"dev\" cannot list "
        "resource \"resourcequotas\" in API group \"\" in the namespace \"team-a\"\n");
    auto unread = by_name(backend::kube::job_checks(reads, test::load_job("name: a\n")));
    CHECK(unread.at("quota").state == doctor::State::Warning);
    CHECK(unread.at("quota").found == "ResourceQuotas and LimitRanges not checked: forbidden");
}
