// Shipping a folder with a job (code, --code) through the built kftrain: what render prints,
// what it refuses.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/files.h"

using kftrain::test::run_kftrain;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A job file beside a project folder it ships: proj/train.py and proj/pkg/helper.py.
std::string make_job(const std::string& extra = "") {
    const std::string dir = kftrain::test::make_temp_dir();
    fs::create_directories(dir + "/proj/pkg");
    kftrain::test::write_file(dir + "/proj/train.py", "import pkg.helper\n");
    kftrain::test::write_file(dir + "/proj/pkg/helper.py", "VALUE = 7\n");
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: shipped\ncommand: [python3, train.py]\n"
                              "code:\n  path: proj\n" +
                                  extra);
    return dir;
}

}  // namespace

TEST_CASE("render ships code as a ConfigMap before the job, a List with -o json", "[cli][code]") {
    const std::string dir = make_job();
    auto yaml = run_kftrain({"render", "-f", dir + "/job.yaml"});
    REQUIRE(yaml.code == 0);
    const size_t split = yaml.out.find("---\n");
    REQUIRE(split != std::string::npos);
    CHECK(yaml.out.rfind("apiVersion: v1\nkind: ConfigMap\n", 0) == 0);
    CHECK(yaml.out.find("kind: PyTorchJob", split) != std::string::npos);

    auto run = run_kftrain({"render", "-f", dir + "/job.yaml", "-o", "json"});
    REQUIRE(run.code == 0);
    const json list = json::parse(run.out);
    REQUIRE(list["kind"] == "List");
    REQUIRE(list["items"].size() == 2);
    const json& map = list["items"][0];
    const json& job = list["items"][1];
    CHECK(map["kind"] == "ConfigMap");
    CHECK(map["data"]["pkg_2fhelper.py"] == "VALUE = 7\n");
    const std::string name = map["metadata"]["name"];
    CHECK(name.rfind("shipped-code-", 0) == 0);
    const json& pod = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"];
    CHECK(pod["volumes"][0]["configMap"]["name"] == name);
    CHECK(pod["containers"][0]["workingDir"] == "/workspace");

    // --code names the folder from the current one instead; the same files, the same name.
    kftrain::test::write_file(dir + "/plain.yaml", "name: shipped\ncommand: [python3, train.py]\n");
    auto flag =
        run_kftrain({"render", "-f", dir + "/plain.yaml", "--code", dir + "/proj", "-o", "json"});
    REQUIRE(flag.code == 0);
    CHECK(json::parse(flag.out)["items"][0]["metadata"]["name"] == name);
}

TEST_CASE("code past 1 MiB, a missing folder, or code in a pipeline exits 2 printing nothing",
          "[cli][code]") {
    const std::string dir = make_job();
    kftrain::test::write_file(dir + "/proj/weights.bin", std::string(1100 * 1024, 'w'));
    auto big = run_kftrain({"render", "-f", dir + "/job.yaml"});
    CHECK(big.code == 2);
    CHECK(big.out.empty());
    CHECK(big.err.find("kftrain: error: code.path: " + dir +
                       "/proj holds 1126462 bytes in 3 files, past the 1 MiB") == 0);
    CHECK(big.err.find("the largest: weights.bin (1126400 bytes)") != std::string::npos);

    auto missing = run_kftrain({"render", "-f", dir + "/job.yaml", "--set", "code.path=nope"});
    CHECK(missing.code == 2);
    CHECK(missing.out.empty());
    CHECK(missing.err ==
          "kftrain: error: code.path: " + dir + "/nope: No such file or directory\n");

    fs::remove(dir + "/proj/weights.bin");
    auto pipeline = run_kftrain({"pipeline", "-f", dir + "/job.yaml"});
    CHECK(pipeline.code == 2);
    CHECK(pipeline.out.empty());
    CHECK(pipeline.err.find("code.path: a pipeline step runs on the cluster, where this folder "
                            "is not") != std::string::npos);
}

namespace {

// The ConfigMap's name render gives the job file in dir.
std::string code_map_name(const std::string& dir) {
    auto run = run_kftrain({"render", "-f", dir + "/job.yaml", "-o", "json"});
    return json::parse(run.out)["items"][0]["metadata"]["name"].get<std::string>();
}

// A fake cluster that refuses the job's apply, where these ConfigMaps exist already.
kftrain::test::FakeCluster refusing_cluster(const std::string& dir, const json& configmaps) {
    kftrain::test::write_file(
        dir + "/scenario.json",
        json{{"configmaps", configmaps},
             {"failures", {{{"when", {"apply"}}, {"stderr", "error: refused\n"}, {"exit", 1}}}}}
            .dump());
    return kftrain::test::FakeCluster(dir + "/scenario.json");
}

bool has_call(const std::vector<std::vector<std::string>>& calls,
              const std::vector<std::string>& call) {
    return std::find(calls.begin(), calls.end(), call) != calls.end();
}

}  // namespace

// Client-side apply copies what it applies into a 256 KiB annotation, a quarter of what a
// ConfigMap holds (docs/limits.md): the code is created, the job applied.
TEST_CASE("submit creates the code ConfigMap, never applies it, and removes only one it created",
          "[cli][code]") {
    const std::string dir = make_job();
    const std::string name = code_map_name(dir);
    auto fresh = refusing_cluster(dir, json::array());
    auto run = fresh.run({"submit", "-f", dir + "/job.yaml", "-n", "team"});
    CHECK(run.code == 4);
    auto calls = fresh.calls();
    CHECK(has_call(calls, {"create", "-f", "-", "--namespace", "team"}));
    for (const auto& applied : fresh.applied()) {
        CHECK(applied.find("kind: ConfigMap") == std::string::npos);
    }
    CHECK(has_call(
        calls, {"delete", "configmap", name, "--ignore-not-found", "--wait=false", "-n", "team"}));

    // One of that name holds these very files (its name is its content): kept.
    auto existing = refusing_cluster(dir, json{name});
    auto again = existing.run({"submit", "-f", dir + "/job.yaml", "-n", "team"});
    INFO(again.err);
    CHECK(again.code == 4);
    CHECK(again.err.find("AlreadyExists") == std::string::npos);
    CHECK(!has_call(existing.calls(), {"delete", "configmap", name, "--ignore-not-found",
                                       "--wait=false", "-n", "team"}));
}

// Each replica template names every file it mounts: a job past what etcd stores is refused
// at render, not by the API server after its ConfigMap was created.
TEST_CASE("code whose job would be past 1.4 MiB exits 2 at render naming the count and size",
          "[cli][code]") {
    const std::string dir = make_job();
    const std::string name(48, 'n');
    for (int d = 0; d < 50; ++d) {
        const std::string sub = dir + "/proj/folder_with_a_long_name_" + std::to_string(d);
        fs::create_directories(sub);
        for (int i = 0; i < 100; ++i) {
            kftrain::test::write_file(sub + "/" + name + std::to_string(i) + ".py", "\n");
        }
    }
    auto run = run_kftrain({"render", "-f", dir + "/job.yaml"});
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    INFO(run.err);
    CHECK(run.err.find("ships 5002 files, and each replica template of the PyTorchJob names "
                       "every one to mount it: the PyTorchJob would be ") != std::string::npos);
    CHECK(run.err.find("past the 1433600 kftrain submits") != std::string::npos);
    // One replica has one template: it fits.
    CHECK(run_kftrain({"render", "-f", dir + "/job.yaml", "--set", "replicas=1"}).code == 0);
}
