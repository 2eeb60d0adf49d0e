#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/files.h"

using kftrain::test::run_kftrain;

namespace {

const std::string k_example = std::string(KFTRAIN_SOURCE_DIR) + "/examples/mnist-ddp.yaml";

}  // namespace

TEST_CASE("kftrain render prints the golden PyTorchJob and nothing on stderr", "[cli]") {
    auto run = run_kftrain({"render", "-f", k_example});
    CHECK(run.code == 0);
    CHECK(run.err.empty());
    CHECK(kftrain::test::matches_golden("mnist-ddp.yaml", run.out));
}

TEST_CASE("kftrain render --set and -o json change what is printed", "[cli]") {
    auto run = run_kftrain({"render", "-f", k_example, "--set", "replicas=8", "--set",
                            "trainer.epochs=5", "-o", "json"});
    REQUIRE(run.code == 0);
    auto doc = nlohmann::json::parse(run.out);
    CHECK(doc["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 7);
    auto args =
        doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["args"];
    auto epochs = std::find(args.begin(), args.end(), "--epochs");
    REQUIRE(epochs != args.end());
    CHECK(*(epochs + 1) == "5");
}

TEST_CASE("kftrain render -n puts the job in that namespace", "[cli]") {
    auto run = run_kftrain({"-n", "team-b", "render", "-f", k_example, "-o", "json"});
    REQUIRE(run.code == 0);
    CHECK(nlohmann::json::parse(run.out)["metadata"]["namespace"] == "team-b");
    auto after = run_kftrain({"render", "-f", k_example, "-o", "json", "--namespace", "team-c"});
    REQUIRE(after.code == 0);
    CHECK(nlohmann::json::parse(after.out)["metadata"]["namespace"] == "team-c");
}

TEST_CASE("bad input to render exits 2 with one error line naming the problem", "[cli]") {
    struct Case {
        std::vector<std::string> args;
        std::string err;
    };
    const std::vector<Case> cases = {
        {{"render", "-f", "/no/such/job.yaml"},
         "kftrain: error: /no/such/job.yaml: cannot read: No such file or directory\n"},
        {{"render", "-f", k_example, "--set", "trainer.epochs=lots"},
         "kftrain: error: --set trainer.epochs: expected an integer (got lots)\n"},
        {{"render", "-f", k_example, "--template", "/no/such/t.yaml"},
         "kftrain: error: --template: /no/such/t.yaml: cannot read: No such file or directory\n"},
        {{"render", "-f", k_example, "-o", "xml"},
         "kftrain: error: -o/--output: must be yaml or json (got xml)\n"},
        {{"render"},
         "kftrain: error: --file is required\nRun 'kftrain render --help' for usage.\n"},
        {{"rendr"},
         "kftrain: error: unknown command rendr (did you mean render?)\nRun 'kftrain "
         "--help' for usage.\n"},
    };
    for (const auto& c : cases) {
        INFO(c.args.back());
        auto run = run_kftrain(c.args);
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err == c.err);
    }
}

TEST_CASE("kftrain init writes a starter that renders", "[cli]") {
    auto init = run_kftrain({"init", "--name", "my-job"});
    REQUIRE(init.code == 0);
    std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml", init.out);
    auto render = run_kftrain({"render", "-f", dir + "/job.yaml", "-o", "json"});
    REQUIRE(render.code == 0);
    CHECK(nlohmann::json::parse(render.out)["metadata"]["name"] == "my-job");

    auto bad = run_kftrain({"init", "--name", "My_Job"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
}

TEST_CASE("kftrain render --kind TrainJob renders the same job file as a TrainJob", "[cli]") {
    auto run = run_kftrain({"render", "-f", k_example, "--kind", "TrainJob", "-o", "json"});
    REQUIRE(run.code == 0);
    CHECK(run.err.empty());
    auto doc = nlohmann::json::parse(run.out);
    CHECK(doc["kind"] == "TrainJob");
    CHECK(doc["spec"]["trainer"]["numNodes"] == 4);

    auto example = run_kftrain(
        {"render", "-f", std::string(KFTRAIN_SOURCE_DIR) + "/examples/mnist-trainjob.yaml"});
    CHECK(example.code == 0);
    CHECK(kftrain::test::matches_golden("mnist-trainjob.yaml", example.out));

    auto bad = run_kftrain({"render", "-f", k_example, "--kind", "MPIJob"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err == "kftrain: error: --kind: must be PyTorchJob or TrainJob (got MPIJob)\n");
}

TEST_CASE("a key a TrainJob cannot express is refused with exit 2 and nothing printed",
          "[cli]") {
    auto run = run_kftrain({"render", "-f", k_example, "--kind", "TrainJob", "--set",
                            "runPolicy.cleanPodPolicy=All"});
    CHECK(run.code == 2);
    CHECK(run.out.empty());
    CHECK(run.err ==
          "kftrain: error: --set runPolicy.cleanPodPolicy: has no TrainJob equivalent: a "
          "TrainJob's pods are kept or removed by its runtime's JobSet (remove it, or keep kind "
          "PyTorchJob)\n");
}

TEST_CASE("kftrain init --kind TrainJob writes a TrainJob starter that renders", "[cli]") {
    auto init = run_kftrain({"init", "--name", "my-job", "--kind", "TrainJob"});
    REQUIRE(init.code == 0);
    std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml", init.out);
    auto render = run_kftrain({"render", "-f", dir + "/job.yaml", "-o", "json"});
    REQUIRE(render.code == 0);
    auto doc = nlohmann::json::parse(render.out);
    CHECK(doc["kind"] == "TrainJob");
    CHECK(doc["spec"]["runtimeRef"]["name"] == "torch-distributed");

    auto bad = run_kftrain({"init", "--kind", "Job"});
    CHECK(bad.code == 2);
    CHECK(bad.err == "kftrain: error: --kind: must be PyTorchJob or TrainJob (got Job)\n");
}

TEST_CASE("kftrain version and --version print the version", "[cli]") {
    auto run = run_kftrain({"version"});
    CHECK(run.code == 0);
    CHECK(run.out.rfind(std::string("kftrain ") + KFTRAIN_VERSION + "\n", 0) == 0);
    auto flag = run_kftrain({"--version"});
    CHECK(flag.code == 0);
    CHECK(flag.out == std::string("kftrain ") + KFTRAIN_VERSION + "\n");
}
