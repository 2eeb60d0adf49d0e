#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/test_data.h"

using kftrain::test::run_kftrain;

TEST_CASE("kftrain render prints the golden PyTorchJob and nothing on stderr", "[cli]") {
    auto run = run_kftrain({"render", "-f", kftrain::test::k_example_job});
    CHECK(run.code == 0);
    CHECK(run.err.empty());
    CHECK(kftrain::test::matches_golden("mnist-ddp.yaml", run.out));
}

TEST_CASE("kftrain render --set and -o json change what is printed", "[cli]") {
    auto run = run_kftrain({"render", "-f", kftrain::test::k_example_job, "--set", "replicas=8",
                            "--set", "trainer.epochs=5", "-o", "json"});
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
    auto run =
        run_kftrain({"-n", "team-b", "render", "-f", kftrain::test::k_example_job, "-o", "json"});
    REQUIRE(run.code == 0);
    CHECK(nlohmann::json::parse(run.out)["metadata"]["namespace"] == "team-b");
    auto after = run_kftrain(
        {"render", "-f", kftrain::test::k_example_job, "-o", "json", "--namespace", "team-c"});
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
        {{"render", "-f", kftrain::test::k_example_job, "--set", "trainer.epochs=lots"},
         "kftrain: error: --set trainer.epochs: expected an integer (got lots)\n"},
        {{"render", "-f", kftrain::test::k_example_job, "--template", "/no/such/t.yaml"},
         "kftrain: error: --template: /no/such/t.yaml: cannot read: No such file or directory\n"},
        {{"render", "-f", kftrain::test::k_example_job, "-o", "xml"},
         "kftrain: error: -o/--output: must be yaml or json (got xml)\n"},
        {{"render"},
         "kftrain: error: -f/--file: give the job file, or its text with --job-yaml (got "
         "neither)\n"},
        {{"render", "-f", kftrain::test::k_example_job, "--job-yaml", "name: x\n"},
         "kftrain: error: --file excludes --job-yaml\nRun 'kftrain render --help' for usage.\n"},
        {{"render", "--job-yaml", ""},
         "kftrain: error: --job-yaml: must hold the job file's text (got \"\")\n"},
        {{"render", "-f", kftrain::test::k_example_job, "--kind", ""},
         "kftrain: error: --kind: must be PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob (got "
         "\"\")\n"},
        {{"init", "--name", "a", "--kind", ""},
         "kftrain: error: --kind: must be PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob (got "
         "\"\")\n"},
        {{"render", "-f", kftrain::test::k_example_job, "--kind", "PaddleJob"},
         "kftrain: error: --kind: must be PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob (got "
         "PaddleJob)\n"},
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
    // The same starter renders as a TrainJob too: it sets no key a TrainJob lacks.
    auto v2 = run_kftrain({"render", "-f", dir + "/job.yaml", "--kind", "TrainJob", "-o", "json"});
    INFO(v2.err);
    REQUIRE(v2.code == 0);
    // Its retry budget: the TrainingRuntime derived for it, then the TrainJob.
    auto v2_items = nlohmann::json::parse(v2.out)["items"];
    REQUIRE(v2_items.size() == 2);
    CHECK(v2_items[0]["kind"] == "TrainingRuntime");
    CHECK(v2_items[1]["kind"] == "TrainJob");

    auto bad = run_kftrain({"init", "--name", "My_Job"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
}

TEST_CASE("kftrain render --kind TrainJob renders the same job file as a TrainJob", "[cli]") {
    auto run = run_kftrain(
        {"render", "-f", kftrain::test::k_example_job, "--kind", "TrainJob", "-o", "json"});
    REQUIRE(run.code == 0);
    CHECK(run.err.empty());
    auto doc = nlohmann::json::parse(run.out);
    CHECK(doc["kind"] == "TrainJob");
    CHECK(doc["spec"]["trainer"]["numNodes"] == 4);

    auto example =
        run_kftrain({"render", "-f",
                     std::string(kftrain::test::source_dir()) + "/examples/mnist-trainjob.yaml"});
    CHECK(example.code == 0);
    CHECK(kftrain::test::matches_golden("mnist-trainjob.yaml", example.out));

    auto bad = run_kftrain({"render", "-f", kftrain::test::k_example_job, "--kind", "MPIJob"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err ==
          "kftrain: error: --kind: must be PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob (got "
          "MPIJob)\n");
}

TEST_CASE("a key a TrainJob cannot express is refused with exit 2 and nothing printed", "[cli]") {
    auto run = run_kftrain({"render", "-f", kftrain::test::k_example_job, "--kind", "TrainJob",
                            "--set", "runPolicy.cleanPodPolicy=All"});
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
    // The starter's retry budget: a TrainingRuntime derived from torch-distributed.
    auto items = nlohmann::json::parse(render.out)["items"];
    REQUIRE(items.size() == 2);
    CHECK(items[0]["spec"]["template"]["spec"]["failurePolicy"]["maxRestarts"] == 3);
    CHECK(items[0]["metadata"]["annotations"]["kftrain.io/derived-from"] == "torch-distributed");
    auto doc = items[1];
    CHECK(doc["kind"] == "TrainJob");
    CHECK(doc["spec"]["runtimeRef"]["name"] == items[0]["metadata"]["name"]);

    auto bad = run_kftrain({"init", "--kind", "Job"});
    CHECK(bad.code == 2);
    CHECK(bad.err ==
          "kftrain: error: --kind: must be PyTorchJob, TrainJob, TFJob, XGBoostJob or JAXJob (got "
          "Job)\n");
}

TEST_CASE("kftrain version and --version print the version", "[cli]") {
    auto run = run_kftrain({"version"});
    CHECK(run.code == 0);
    CHECK(run.out.rfind(std::string("kftrain ") + KFTRAIN_VERSION + "\n", 0) == 0);
    auto flag = run_kftrain({"--version"});
    CHECK(flag.code == 0);
    CHECK(flag.out == std::string("kftrain ") + KFTRAIN_VERSION + "\n");
}

TEST_CASE("what Kubernetes would reject exits 2 before render prints or submit applies",
          "[cli][submit]") {
    std::string dir = kftrain::test::make_temp_dir();
    std::string tmpl = kftrain::test::read_test_data("../../templates/pytorchjob.yaml");
    const std::string image = "image: \"{{ image }}\"";
    tmpl.replace(tmpl.find(image), image.size(), "image: \"{{ priorityClassName }}\"");
    kftrain::test::write_file(dir + "/erases-image.yaml", tmpl);
    kftrain::test::write_file(dir + "/label.yaml", "name: a\nlabels:\n  -bad/key: x\n");
    kftrain::test::write_file(dir + "/toleration.yaml",
                              "name: a\ntolerations:\n  - key: dedicated\n    operator: "
                              "Exists\n    value: gpu\n");
    struct Case {
        std::vector<std::string> args;
        std::string err;
    };
    const std::vector<Case> cases = {
        {{"-f", dir + "/label.yaml"},
         "kftrain: error: " + dir +
             "/label.yaml:3: labels.\"-bad/key\": the key must be a qualified name: the prefix "
             "before '/' must be a DNS-1123 subdomain: at most 253 lower-case letters, digits, "
             "'-' and '.', starting and ending with a letter or digit (got -bad/key)\n"},
        {{"-f", dir + "/toleration.yaml"},
         "kftrain: error: " + dir +
             "/toleration.yaml:5: tolerations[0].value: must be empty when operator is Exists "
             "(got gpu)\n"},
        {{"-f", kftrain::test::k_example_job, "--template", dir + "/erases-image.yaml"},
         "kftrain: error: " + dir +
             "/erases-image.yaml:31: the rendered PyTorchJob has no "
             "spec.pytorchReplicaSpecs.Master.template.spec.containers[pytorch].image, which it "
             "needs: {{ priorityClassName }} there leaves it out for this job (the built-in "
             "template has {{ image }} there)\n"},
    };
    kftrain::test::FakeCluster cluster("created");
    for (const auto& c : cases) {
        for (const char* verb : {"render", "submit"}) {
            std::vector<std::string> args = {verb};
            args.insert(args.end(), c.args.begin(), c.args.end());
            INFO(args.back());
            auto run = cluster.run(args);
            CHECK(run.code == 2);
            CHECK(run.out.empty());
            CHECK(run.err == c.err);
        }
    }
    CHECK(cluster.calls().empty());
}

TEST_CASE("a literal credential in env is rendered with a warning on stderr", "[cli]") {
    std::string dir = kftrain::test::make_temp_dir();
    kftrain::test::write_file(dir + "/job.yaml",
                              "name: a\nmlflow:\n  trackingUri: http://mlflow\n"
                              "  credentialsSecret: mlflow-credentials\nenv:\n"
                              "  MLFLOW_TRACKING_PASSWORD: hunter2\n");
    auto run = run_kftrain({"render", "-f", dir + "/job.yaml", "-o", "json"});
    CHECK(run.code == 0);
    CHECK(nlohmann::json::parse(run.out)["metadata"]["name"] == "a");
    CHECK(run.err == "kftrain: warning: " + dir +
                         "/job.yaml:6: env.MLFLOW_TRACKING_PASSWORD: a literal value, and "
                         "mlflow.credentialsSecret also sets MLFLOW_TRACKING_PASSWORD from Secret "
                         "mlflow-credentials; the literal is written into the manifest in plain "
                         "text: remove it\n");
}

TEST_CASE("a label key as long as argv allows is refused with exit 2, not a crash", "[cli]") {
    const std::string key(120000, 'a');
    for (const std::string map : {"labels", "nodeSelector"}) {
        INFO(map);
        auto run = run_kftrain(
            {"render", "-f", kftrain::test::k_example_job, "--set", map + "." + key + "=x"});
        CHECK(run.code == 2);
        CHECK(run.out.empty());
        CHECK(run.err.rfind("kftrain: error: --set " + map + "." + key +
                                ": the key must be a "
                                "qualified name",
                            0) == 0);
    }
}
