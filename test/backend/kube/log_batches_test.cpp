#include "backend/kube/log_batches.h"

#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "backend/kube/logs.h"
#include "backend/kube/status/pods.h"

namespace kube = kftrain::backend::kube;
namespace job = kftrain::job;
namespace util = kftrain::util;

namespace {

constexpr const char* k_job_selector = "training.kubeflow.org/job-name=big";

job::ReplicaStatus operator_replica(const std::string& type, int index) {
    job::ReplicaStatus r;
    r.type = type;
    r.index = index;
    std::string lowered = type == "Master" ? "master" : "worker";
    r.name = lowered + "-" + std::to_string(index);
    r.pod = "big-" + r.name;
    r.state = "Running";
    r.labels = {"training.kubeflow.org/replica-type", lowered,
                "training.kubeflow.org/replica-index", std::to_string(index)};
    return r;
}

std::vector<job::ReplicaStatus> big_job(int workers) {
    std::vector<job::ReplicaStatus> replicas = {operator_replica("Master", 0)};
    for (int i = 0; i < workers; ++i) {
        replicas.push_back(operator_replica("Worker", i));
    }
    return replicas;
}

std::vector<size_t> all_of(const std::vector<job::ReplicaStatus>& replicas) {
    std::vector<size_t> wanted;
    for (size_t i = 0; i < replicas.size(); ++i) {
        wanted.push_back(i);
    }
    return wanted;
}

// A kubectl that serves `logs -l SELECTOR --prefix` as the real one does: the selected pods
// in an order of its own (here: backwards), each line prefixed, stopping with exit code 1 at a
// pod named in broken; `logs POD` answers one pod. Records every call.
class BatchKubectl : public kube::KubectlRunner {
  public:
    explicit BatchKubectl(std::vector<job::ReplicaStatus> pods) : m_pods(std::move(pods)) {}

    util::Result<kube::KubectlResult> run(const std::vector<std::string>& args,
                                          const std::string&) override {
        std::lock_guard<std::mutex> lock(m_mutex);
        calls.push_back(args);
        if (args.at(1) != "-l") {
            if (broken.count(args.at(1)) != 0) {
                return kube::KubectlResult{1, "", "Error from server (BadRequest): broken\n"};
            }
            return kube::KubectlResult{0, args.at(1) + " line 1\n" + args.at(1) + " line 2\n", ""};
        }
        const std::string& selector = args.at(2);
        std::string out;
        for (auto pod = m_pods.rbegin(); pod != m_pods.rend(); ++pod) {
            const std::string index_term = pod->labels.index_key + " in (";
            size_t at = selector.find(index_term);
            std::string indices = "," + selector.substr(at + index_term.size());
            bool picked = selector.find("=" + pod->labels.type + ",") != std::string::npos &&
                          (indices.find("," + pod->labels.index + ",") != std::string::npos ||
                           indices.find("," + pod->labels.index + ")") != std::string::npos);
            if (!picked) {
                continue;
            }
            if (broken.count(pod->pod) != 0) {
                return kube::KubectlResult{
                    1, out, "Error from server (BadRequest): container is waiting to start\n"};
            }
            for (int line = 1; line <= 2; ++line) {
                out += "[pod/" + pod->pod + "/pytorch] " + pod->pod + " line " +
                       std::to_string(line) + "\n";
            }
        }
        return kube::KubectlResult{0, out, ""};
    }

    util::Result<kube::KubectlResult> stream(const std::vector<std::string>& args,
                                             const util::LineCallback&,
                                             const std::atomic<bool>*) override {
        return run(args, "");
    }

    std::vector<std::vector<std::string>> calls;
    std::set<std::string> broken;

  private:
    std::vector<job::ReplicaStatus> m_pods;
    std::mutex m_mutex;
};

}  // namespace

TEST_CASE("a large job's replicas are read in batches of one type, narrowed to their indices",
          "[cluster][logs]") {
    auto replicas = big_job(600);
    auto plan = kube::plan_log_reads(replicas, all_of(replicas), k_job_selector);
    // One master is read alone; 600 workers in batches of at most 256.
    CHECK(plan.singles == std::vector<size_t>{0});
    REQUIRE(plan.batches.size() == 3);
    CHECK(plan.batches[0].members.size() == 256);
    CHECK(plan.batches[2].members.size() == 88);
    CHECK(plan.batches[0].container == "pytorch");
    CHECK(plan.batches[2].selector ==
          std::string(k_job_selector) +
              ",training.kubeflow.org/replica-type=worker,training.kubeflow.org/replica-index in "
              "(512,513,514,515,516,517,518,519,520,521,522,523,524,525,526,527,528,529,530,531,"
              "532,533,534,535,536,537,538,539,540,541,542,543,544,545,546,547,548,549,550,551,552,"
              "553,554,555,556,557,558,559,560,561,562,563,564,565,566,567,568,569,570,571,572,573,"
              "574,575,576,577,578,579,580,581,582,583,584,585,586,587,588,589,590,591,592,593,594,"
              "595,596,597,598,599)");
}

TEST_CASE("pods without replica labels, or few of a type, are read one by one", "[cluster][logs]") {
    auto replicas = big_job(2);
    auto plan = kube::plan_log_reads(replicas, all_of(replicas), k_job_selector);
    CHECK(plan.batches.empty());
    CHECK(plan.singles == std::vector<size_t>{0, 1, 2});
    auto unlabelled = big_job(10);
    for (auto& replica : unlabelled) {
        replica.labels = {};
    }
    CHECK(kube::plan_log_reads(unlabelled, all_of(unlabelled), k_job_selector).batches.empty());
    // No selector found the pods (a listing of another source): nothing to narrow.
    CHECK(kube::plan_log_reads(replicas, all_of(replicas), "").singles.size() == 3);
}

TEST_CASE("a batch reads every line unless --tail says otherwise, with the read's flags",
          "[cluster][logs]") {
    kube::LogBatch batch{"sel", "node", {}};
    job::LogOptions options;
    CHECK(kube::batch_log_args(batch, options, {}) ==
          std::vector<std::string>{"logs", "-l", "sel", "--prefix", "-c", "node", "--tail=-1"});
    options.tail = 5;
    options.since = "1h";
    options.timestamps = true;
    options.previous = true;
    CHECK(kube::batch_log_args(batch, options, {"-n", "ml"}) ==
          std::vector<std::string>{"logs", "-l", "sel", "--prefix", "-c", "node", "--tail=5",
                                   "--since=1h", "--timestamps", "-p", "-n", "ml"});
}

TEST_CASE("kubectl's pod prefix is split from the line it prints", "[cluster][logs]") {
    auto parts = kube::split_prefixed("[pod/big-worker-3/pytorch] epoch 1 [x] done");
    REQUIRE(parts);
    CHECK(parts->pod == "big-worker-3");
    CHECK(parts->container == "pytorch");
    CHECK(parts->text == "epoch 1 [x] done");
    CHECK(kube::split_prefixed("[pod/p/c] ")->text.empty());
    CHECK_FALSE(kube::split_prefixed("error: something"));
    CHECK_FALSE(kube::split_prefixed("[pod/no-close"));
}

TEST_CASE("1025 replicas are read by five kubectl calls, in replica order", "[cluster][logs]") {
    auto replicas = big_job(1024);
    BatchKubectl kubectl(replicas);
    std::vector<std::string> shown;
    auto done = kube::fetch_logs(kubectl, replicas, k_job_selector, job::LogOptions{}, {},
                                 [&](const job::LogLine& line) { shown.push_back(line.text); });
    REQUIRE(done);
    CHECK(kubectl.calls.size() == 5);  // the master, and four batches of 256 workers
    REQUIRE(shown.size() == 2050);
    CHECK(shown[0] == "big-master-0 line 1");
    CHECK(shown[2] == "big-worker-0 line 1");
    CHECK(shown[3] == "big-worker-0 line 2");
    CHECK(shown[2049] == "big-worker-1023 line 2");
}

TEST_CASE("a batch that stops at a pod has the pods it did not finish read one by one",
          "[cluster][logs]") {
    auto replicas = big_job(8);
    BatchKubectl kubectl(replicas);
    // Read backwards, the batch prints worker-7 .. worker-5 and stops at worker-4.
    kubectl.broken = {"big-worker-4"};
    std::vector<job::LogLine> shown;
    auto done = kube::fetch_logs(kubectl, replicas, k_job_selector, job::LogOptions{}, {},
                                 [&](const job::LogLine& line) { shown.push_back(line); });
    REQUIRE_FALSE(done);
    CHECK(done.error() == "could not read the logs of 1 of 9 replicas");
    // The master, the batch, then worker-0..4 and worker-5 (read last, perhaps cut short).
    CHECK(kubectl.calls.size() == 2 + 6);
    std::map<std::string, int> lines;
    std::string notice;
    for (const auto& line : shown) {
        if (line.notice) {
            notice = line.replica + ": " + line.text;
        } else {
            lines[line.replica] += 1;
        }
    }
    CHECK(notice ==
          "worker-4: reading the log of big-worker-4: Error from server (BadRequest): "
          "broken");
    for (int i = 0; i < 8; ++i) {
        CHECK(lines["worker-" + std::to_string(i)] == (i == 4 ? 0 : 2));
    }
}

TEST_CASE("a TrainJob's nodes are batched by their JobSet labels, where the index is a label",
          "[cluster][logs]") {
    auto node_pod = [](int index, bool index_labelled) {
        nlohmann::json pod = {
            {"metadata",
             {{"name", "tj-node-0-" + std::to_string(index) + "-abcde"},
              {"labels",
               {{"jobset.sigs.k8s.io/jobset-name", "tj"},
                {"jobset.sigs.k8s.io/replicatedjob-name", "node"}}},
              {"annotations",
               {{"batch.kubernetes.io/job-completion-index", std::to_string(index)}}}}},
            {"spec", {{"containers", {{{"name", "node"}}}}}},
            {"status", {{"phase", "Running"}}}};
        if (index_labelled) {
            pod["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"] =
                std::to_string(index);
        }
        return pod;
    };
    std::vector<job::ReplicaStatus> labelled;
    std::vector<job::ReplicaStatus> annotated;  // Kubernetes before 1.28
    for (int i = 0; i < 3; ++i) {
        labelled.push_back(kube::replica_from_pod(node_pod(i, true), "tj"));
        annotated.push_back(kube::replica_from_pod(node_pod(i, false), "tj"));
    }
    CHECK(annotated[2].name == "node-2");
    const std::string selector = "jobset.sigs.k8s.io/jobset-name=tj";
    auto plan = kube::plan_log_reads(labelled, all_of(labelled), selector);
    REQUIRE(plan.batches.size() == 1);
    CHECK(plan.batches[0].container == "node");
    CHECK(plan.batches[0].selector ==
          selector +
              ",jobset.sigs.k8s.io/replicatedjob-name=node,batch.kubernetes.io/"
              "job-completion-index in (0,1,2)");
    CHECK(kube::plan_log_reads(annotated, all_of(annotated), selector).singles.size() == 3);
}
