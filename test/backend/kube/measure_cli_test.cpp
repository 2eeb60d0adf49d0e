// `kftrain estimate --measure --on-cluster` before anything runs: what it prints it will cost,
// the consent it needs (--yes, or a --max-cost that covers it), the flags it takes, and a job
// of a measurement's name already there: in each refusal nothing reaches the cluster.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"

namespace {

using kftrain::test::FakeCluster;
using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using nlohmann::json;

// A job of its own program, 1 core and 1 GiB a replica.
std::string measured_job_file(const std::string& dir, const std::string& extra = "") {
    const std::string file = dir + "/job.yaml";
    write_file(file,
               "name: own\nnamespace: ml\nreplicas: 2\ncommand: [python3, train.py]\n"
               "resources:\n  cpu: \"1\"\n  memory: 1Gi\n" +
                   extra);
    return file;
}

// A fake cluster where a job of this name exists (the recorded running PyTorchJob, renamed).
FakeCluster cluster_with_measure_job(const std::string& dir, const std::string& name) {
    std::ifstream in(std::string(kftrain::test::test_data_dir()) + "/kube/job-v19-running.json");
    json job = json::parse(in);
    job["metadata"]["name"] = name;
    write_file(dir + "/existing.json", job.dump());
    write_file(dir + "/scenario.json", json{{"states", {{{"job", "existing.json"}}}}}.dump());
    return FakeCluster(dir + "/scenario.json");
}

// Return whether any kubectl call submitted or deleted something.
bool measure_changed_anything(const FakeCluster& cluster) {
    for (const auto& argv : cluster.calls()) {
        for (const auto& word : argv) {
            if (word == "apply" || word == "create" || word == "delete") {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

TEST_CASE("estimate --on-cluster prints what the measurement costs and runs nothing unasked",
          "[estimate][measure][cluster][cli]") {
    const std::string dir = make_temp_dir();
    const std::string file = measured_job_file(dir);
    FakeCluster cluster(dir + "/none.json");
    write_file(dir + "/none.json", "{}");
    auto asked = cluster.run({"estimate", "-f", file, "--measure", "--on-cluster",
                              "--measure-replicas", "1,2", "--measure-seconds", "30s"});
    INFO(asked.err);
    CHECK(asked.code == 2);
    CHECK_THAT(asked.err, Catch::Contains("own-measure-1, own-measure-2") &&
                              Catch::Contains("3 replicas") && Catch::Contains("$") &&
                              Catch::Contains("not counted") && Catch::Contains("--yes") &&
                              Catch::Contains("--max-cost"));
    CHECK(asked.out.empty());
    CHECK(cluster.calls().empty());

    // A budget below the most it may cost (every size run on to 4x its time) refuses it too.
    auto over = cluster.run({"estimate", "-f", file, "--measure", "--on-cluster",
                             "--measure-seconds", "30s", "--max-cost", "0.0001"});
    INFO(over.err);
    CHECK(over.code == 2);
    CHECK_THAT(over.err, Catch::Contains("--max-cost: the measurement may cost up to") &&
                             Catch::Contains("0.0001") && Catch::Contains("nothing was submitted"));
    CHECK(cluster.calls().empty());

    // GPUs of no named type cannot be priced: a budget cannot hold it.
    const std::string gpu_file = measured_job_file(make_temp_dir(), "  gpus: 1\n");
    auto unpriced =
        cluster.run({"estimate", "-f", gpu_file, "--measure", "--on-cluster", "--max-cost", "5"});
    INFO(unpriced.err);
    CHECK(unpriced.code == 2);
    CHECK_THAT(unpriced.err, Catch::Contains("cannot be priced") && Catch::Contains("--gpu"));
    CHECK(cluster.calls().empty());
}

TEST_CASE("estimate --on-cluster refuses flags out of place, naming the flag and the value",
          "[estimate][measure][cluster][cli]") {
    const std::string dir = make_temp_dir();
    const std::string file = measured_job_file(dir);
    write_file(dir + "/none.json", "{}");
    FakeCluster cluster(dir + "/none.json");
    struct Case {
        std::vector<std::string> flags;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"--on-cluster"}, "--on-cluster: needs --measure"},
        {{"--measure", "--yes"}, "--yes: needs --measure --on-cluster"},
        {{"--measure", "--measure-parallel"}, "--measure-parallel: needs --measure --on-cluster"},
        {{"--measure", "--max-cost", "5"}, "--max-cost: needs --measure --on-cluster"},
        {{"--measure", "--start-timeout", "1m"}, "--start-timeout: needs --measure --on-cluster"},
        {{"--measure", "--on-cluster", "--local", "--yes"}, "runs on this machine"},
        {{"--measure", "--on-cluster", "--max-cost", "lots"}, "--max-cost: must be an amount"},
        {{"--measure", "--on-cluster", "--yes", "--start-timeout", "0s"}, "--start-timeout"},
        {{"--measure", "--on-cluster", "--yes", "--measure-replicas", "0"}, "--measure-replicas"},
    };
    for (const Case& c : cases) {
        std::vector<std::string> args = {"estimate", "-f", file};
        args.insert(args.end(), c.flags.begin(), c.flags.end());
        auto run = cluster.run(args);
        INFO(c.says << ": " << run.err);
        CHECK(run.code == 2);
        CHECK_THAT(run.err, Catch::Contains(c.says));
    }
    CHECK(cluster.calls().empty());
}

TEST_CASE("estimate --on-cluster leaves a job of a measurement's name alone and submits nothing",
          "[estimate][measure][cluster][cli]") {
    const std::string dir = make_temp_dir();
    const std::string file = measured_job_file(dir);
    FakeCluster cluster = cluster_with_measure_job(dir, "own-measure-1");
    auto run = cluster.run({"estimate", "-f", file, "--measure", "--on-cluster", "--yes"});
    INFO(run.err);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("a job named own-measure-1 exists in namespace ml") &&
                            Catch::Contains("kftrain delete own-measure-1"));
    CHECK_FALSE(measure_changed_anything(cluster));
    CHECK(cluster.applied().empty());
}
