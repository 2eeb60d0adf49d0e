#include "backend/kube/search/kube_search.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "support/fake_cluster.h"
#include "support/paths.h"
#include "support/test_data.h"

using namespace kftrain;
using kftrain::test::contains;
using kftrain::test::FakeCluster;
using kftrain::test::read_test_data;
using Argv = std::vector<std::string>;

namespace {

// Points this process's kubectl calls at the fake playing a scenario while it lives.
class ScopedFakeKubectl {
  public:
    explicit ScopedFakeKubectl(const std::string& scenario) : cluster(scenario) {
        for (const auto& [name, value] : cluster.env()) {
            const char* old = std::getenv(name.c_str());
            m_saved.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
            ::setenv(name.c_str(), value.c_str(), 1);
        }
    }
    ~ScopedFakeKubectl() {
        for (const auto& [name, value] : m_saved) {
            if (value) {
                ::setenv(name.c_str(), value->c_str(), 1);
            } else {
                ::unsetenv(name.c_str());
            }
        }
    }

    // The cluster's search backend in namespace ml-training, priced with the built-in prices.
    std::unique_ptr<job::SearchBackend> backend() const {
        return backend::kube::make_kube_search(job::BackendOptions{}, "ml-training");
    }

    FakeCluster cluster;

  private:
    std::vector<std::pair<std::string, std::optional<std::string>>> m_saved;
};

// A request to start the running search's Experiment, as kftrain would apply it: without the
// status and the fields the API server adds.
job::SearchRequest start_request(job::DryRun dry_run) {
    job::SearchRequest request;
    request.experiment = YAML::Load(read_test_data("kube/experiment-katib-running.json"));
    request.experiment.remove("status");
    for (const char* key : {"annotations", "creationTimestamp", "finalizers", "generation",
                            "resourceVersion", "uid"}) {
        request.experiment["metadata"].remove(key);
    }
    request.job.name = "mnist-ddp";
    request.job.namespace_ = "ml-training";
    request.dry_run = dry_run;
    return request;
}

}  // namespace

TEST_CASE("tune start applies the Experiment to the job's namespace and says what is next",
          "[search][cluster]") {
    SECTION("applied") {
        ScopedFakeKubectl fake("katib-running");
        std::ostringstream out, err;
        job::Reporter report{out, err};
        auto started = fake.backend()->start(start_request(job::DryRun::None), report);
        REQUIRE(started);
        CHECK(*started == 0);
        CHECK(err.str() == "");
        CHECK(out.str() ==
              "experiment.kubeflow.org/mnist-tune submitted\n"
              "See its trials with 'kftrain tune status mnist-tune -n ml-training'\n");
        CHECK(fake.cluster.calls() ==
              std::vector<Argv>{{"apply", "--server-side", "--field-manager=kftrain",
                                 "--force-conflicts", "-f", "-", "--namespace", "ml-training"}});
        const auto applied = fake.cluster.applied();
        REQUIRE(applied.size() == 1);
        YAML::Node sent = YAML::Load(applied[0]);
        CHECK(sent["kind"].as<std::string>() == "Experiment");
        CHECK(sent["spec"]["trialTemplate"]["trialSpec"]["kind"].as<std::string>() == "PyTorchJob");
    }
    SECTION("checked by the server, nothing created") {
        ScopedFakeKubectl fake("katib-running");
        std::ostringstream out, err;
        job::Reporter report{out, err};
        auto started = fake.backend()->start(start_request(job::DryRun::Server), report);
        REQUIRE(started);
        CHECK(*started == 0);
        CHECK(out.str() ==
              "experiment.kubeflow.org/mnist-tune accepted by the server (dry run: nothing "
              "created)\n");
        CHECK(fake.cluster.calls() ==
              std::vector<Argv>{{"apply", "--server-side", "--field-manager=kftrain",
                                 "--force-conflicts", "-f", "-", "--namespace", "ml-training",
                                 "--dry-run=server"}});
    }
}

TEST_CASE("tune start of a search whose name is taken says how to free it", "[search][cluster]") {
    ScopedFakeKubectl fake("katib-exists");
    std::ostringstream out, err;
    job::Reporter report{out, err};
    auto started = fake.backend()->start(start_request(job::DryRun::None), report);
    REQUIRE_FALSE(started);
    CHECK(started.error_code(0) == 4);
    CHECK(out.str() == "");
    CHECK(err.str() == "");
    CHECK(started.error() ==
          "submitting experiment/mnist-tune: Error from server (Forbidden): error "
          "when applying patch: (hint: an Experiment named mnist-tune already exists and Katib "
          "lets only its trial counts change: delete it with 'kftrain tune delete mnist-tune' or "
          "choose another --name)");
}

TEST_CASE("tune on a cluster without Katib fails with exit 4 and says Katib is missing",
          "[search][cluster]") {
    ScopedFakeKubectl fake("katib-missing");
    std::ostringstream out, err;
    job::Reporter report{out, err};
    auto backend = fake.backend();
    auto started = backend->start(start_request(job::DryRun::None), report);
    REQUIRE_FALSE(started);
    CHECK(started.error_code(0) == 4);
    CHECK(out.str() == "");
    CHECK(err.str() == "");
    CHECK(started.error() ==
          "submitting experiment/mnist-tune: resource mapping not found for name: "
          "\"mnist-tune\" namespace: \"ml-training\" from \"STDIN\": no matches for kind "
          "\"Experiment\" in version \"kubeflow.org/v1beta1\" (hint: Katib is not installed in "
          "this cluster (no experiments.kubeflow.org CRD): install Katib, or run the search on "
          "this machine with --local)");
    auto status = backend->status("mnist-tune");
    REQUIRE_FALSE(status);
    CHECK(status.error_code(0) == 4);
    CHECK(status.error() ==
          "reading experiment/mnist-tune: the server doesn't have a resource type "
          "\"experiments\" (hint: Katib is not installed in this cluster (no "
          "experiments.kubeflow.org CRD): install Katib, or run the search on this machine with "
          "--local)");
}

TEST_CASE("tune status reads the Experiment and its Trials, and prices the trials",
          "[search][cluster]") {
    ScopedFakeKubectl fake("katib-running");
    auto status = fake.backend()->status("mnist-tune");
    REQUIRE(status);
    CHECK(fake.cluster.calls() ==
          std::vector<Argv>{
              {"get", "experiments.kubeflow.org", "-o", "json", "-n", "ml-training", "--",
               "mnist-tune"},
              {"get", "trials.kubeflow.org", "-l", "katib.kubeflow.org/experiment=mnist-tune", "-o",
               "json", "-n", "ml-training"}});
    CHECK(status->phase == "Running");
    CHECK(status->best_trial == "mnist-tune-7kq2xw9d");
    REQUIRE(status->trials.size() == 6);
    CHECK(status->trials[2].state == kftrain::tune::TrialState::Failed);
    // A finished trial's cost is final: 12m30s x 2 replicas x $0.0802/h (built-in prices).
    REQUIRE(status->trials[0].cost);
    CHECK(*status->trials[0].cost == Approx(750.0 / 3600 * 2 * 0.0802).epsilon(0.01));
    REQUIRE(status->cost);
    CHECK(*status->cost > *status->trials[0].cost);
    CHECK(status->cost_basis ==
          "$0.1603/h per trial: 2 replicas x $0.0802/h each (2 cores, 4 GiB), built-in prices");
}

TEST_CASE("tune status of a search of TrainJob trials prices its nodes", "[search][cluster]") {
    ScopedFakeKubectl fake("katib-trainjob");
    auto status = fake.backend()->status("mnist-trainjob-tune");
    REQUIRE(status);
    CHECK(status->job_kind == "TrainJob");
    CHECK(status->best_trial == "mnist-trainjob-tune-h7c4m2pd");
    CHECK(status->cost_basis ==
          "$0.3207/h per trial: 2 replicas x $0.1603/h each (4 cores, 8 GiB), built-in prices");
}

TEST_CASE("tune logs finds a trial's job by its number or its name", "[search][cluster]") {
    ScopedFakeKubectl fake("katib-running");
    auto backend = fake.backend();
    auto third = backend->trial_job("mnist-tune", "3");
    REQUIRE(third);
    CHECK(*third == "mnist-tune-c2zq9h4t");
    auto named = backend->trial_job("mnist-tune", "mnist-tune-x4hj8t2m");
    REQUIRE(named);
    CHECK(*named == "mnist-tune-x4hj8t2m");
    auto absent = backend->trial_job("mnist-tune", "7");
    REQUIRE_FALSE(absent);
    CHECK(absent.error_code(0) == 3);
    CHECK(absent.error() ==
          "--trial: experiment mnist-tune has no trial 7 (its trials are 1 to 6, or a trial's "
          "name such as mnist-tune-7kq2xw9d)");
}

TEST_CASE("tune delete deletes the Experiment, a search that is not there is exit 3",
          "[search][cluster]") {
    ScopedFakeKubectl fake("katib-running");
    auto backend = fake.backend();
    CHECK(backend->remove("mnist-tune"));
    auto gone = backend->remove("mnist-tuner");
    REQUIRE_FALSE(gone);
    CHECK(gone.error_code(0) == 3);
    CHECK(gone.error() ==
          "no Experiment named mnist-tuner in namespace ml-training (hint: check the name and "
          "the namespace (-n))");
    auto status = backend->status("mnist-tuner");
    REQUIRE_FALSE(status);
    CHECK(status.error_code(0) == 3);
    CHECK(status.error() == gone.error());
    CHECK(fake.cluster.calls() ==
          std::vector<Argv>{{"delete", "experiments.kubeflow.org", "--wait=false", "-n",
                             "ml-training", "--", "mnist-tune"},
                            // Its trials' code goes with it, by label.
                            {"delete", "configmap", "-l",
                             "kftrain.io/code-of=mnist-tune,kftrain.io/code-for=search",
                             "--ignore-not-found", "--wait=false", "-n", "ml-training"},
                            {"delete", "experiments.kubeflow.org", "--wait=false", "-n",
                             "ml-training", "--", "mnist-tuner"},
                            {"get", "experiments.kubeflow.org", "-o", "json", "-n", "ml-training",
                             "--", "mnist-tuner"}});
}

TEST_CASE("kftrain tune applies the Experiment wrapping the job file's job",
          "[search][cluster][cli]") {
    const std::string job_file =
        std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml";
    SECTION("with Katib") {
        FakeCluster cluster("katib-running");
        auto run = cluster.run(
            {"tune", "-f", job_file, "--param", "lr=0.001:0.1:log", "--name", "mnist-tune"});
        CHECK(run.err == "");
        CHECK(run.code == 0);
        CHECK(run.out ==
              "experiment.kubeflow.org/mnist-tune submitted\n"
              "See its trials with 'kftrain tune status mnist-tune -n ml-training'\n");
        CHECK(cluster.calls() ==
              std::vector<Argv>{{"apply", "--server-side", "--field-manager=kftrain",
                                 "--force-conflicts", "-f", "-", "--namespace", "ml-training"}});
        YAML::Node sent = YAML::Load(cluster.applied().at(0));
        CHECK(sent["kind"].as<std::string>() == "Experiment");
        CHECK(sent["spec"]["parameters"][0]["name"].as<std::string>() == "lr");
    }
    SECTION("without Katib") {
        FakeCluster cluster("katib-missing");
        auto run = cluster.run({"tune", "-f", job_file, "--param", "lr=0.001:0.1:log"});
        CHECK(run.code == 4);
        CHECK(run.out == "");
        CHECK(contains(run.err, "no matches for kind \"Experiment\""));
        CHECK(contains(run.err,
                       "(hint: Katib is not installed in this cluster (no "
                       "experiments.kubeflow.org CRD)"));
    }
}

TEST_CASE("kftrain tune status and tune logs read a search on the cluster",
          "[search][cluster][cli]") {
    FakeCluster cluster("katib-running");
    auto status = cluster.run({"tune", "status", "mnist-tune", "-n", "ml-training", "-o", "json"});
    CHECK(status.err == "");
    REQUIRE(status.code == 0);
    auto json = nlohmann::json::parse(status.out);
    CHECK(json["phase"] == "Running");
    CHECK(json["bestTrial"]["name"] == "mnist-tune-7kq2xw9d");
    CHECK(json["cost"]["basis"] ==
          "$0.1603/h per trial: 2 replicas x $0.0802/h each (2 cores, 4 GiB), built-in prices");

    // Trial 1's job is named after it; its logs are read as any job's, the trainer's container
    // chosen beside Katib's metrics collector.
    auto logs = cluster.run({"tune", "logs", "mnist-tune", "--trial", "1", "-n", "ml-training"});
    CHECK(logs.err == "");
    CHECK(logs.code == 0);
    CHECK(contains(logs.out,
                   "master-0 | 2024-05-02T09:11:40.233Z accuracy=0.987100 "
                   "loss=0.043100\n"));
    CHECK(contains(logs.out, "worker-0 | worker 0 ready\n"));
    auto calls = cluster.calls();
    REQUIRE(calls.size() >= 5);
    CHECK(calls[4] == Argv{"get", kftrain::test::k_job_resources, "-o", "json",
                           "--ignore-not-found", "-n", "ml-training", "--", "mnist-tune-7kq2xw9d"});

    auto missing = cluster.run({"tune", "status", "mnist-tuner", "-n", "ml-training"});
    CHECK(missing.code == 3);
    CHECK(missing.err ==
          "kftrain: error: no Experiment named mnist-tuner in namespace ml-training (hint: check "
          "the name and the namespace (-n))\n");
}
