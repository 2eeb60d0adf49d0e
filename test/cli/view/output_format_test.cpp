// -o json|yaml on every read verb: one declared list of formats per verb, and the JSON and
// the YAML of one view carrying the same data.
#include "cli/view/output_format.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "backend/local/local_fixture.h"
#include "manifest/yaml/emit.h"
#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/paths.h"
#include "support/test_data.h"

using kftrain::cli::view::OutputFormat;
using kftrain::test::contains;
using kftrain::test::FakeCluster;
using kftrain::test::run_kftrain;
using nlohmann::json;

namespace {

// Run a verb with -o json and -o yaml; check both succeed and carry the same data; return it.
json same_data(const std::vector<std::string>& args,
               const std::map<std::string, std::string>& env = {}) {
    auto with = [&](const char* format) {
        std::vector<std::string> full = args;
        full.insert(full.end(), {"-o", format});
        return run_kftrain(full, env);
    };
    auto as_json = with("json");
    auto as_yaml = with("yaml");
    INFO(as_json.err << as_yaml.err);
    REQUIRE(as_json.code == 0);
    REQUIRE(as_yaml.code == 0);
    const json data = json::parse(as_json.out);
    json from_json = data;
    json from_yaml = kftrain::manifest::to_json(YAML::Load(as_yaml.out));
    // A running job's duration grows between the two runs: the one field read off the clock.
    for (json* doc : {&from_json, &from_yaml}) {
        if (doc->is_object() && doc->value("finished", "").empty()) {
            doc->erase("durationSeconds");
        }
    }
    CHECK(from_yaml == from_json);
    return data;
}

}  // namespace

TEST_CASE("each verb's -o formats are one declared list, found by the verb's name",
          "[cli][output]") {
    using kftrain::cli::view::output_formats_of;
    CHECK(output_formats_of("describe") == &kftrain::cli::view::k_describe_formats);
    CHECK(output_formats_of("version") == &kftrain::cli::view::k_version_formats);
    CHECK(output_formats_of("estimate") == &kftrain::cli::view::k_table_formats);
    CHECK(output_formats_of("tune status") == &kftrain::cli::view::k_job_formats);
    CHECK(output_formats_of("logs") == nullptr);
    CHECK(kftrain::cli::view::output_flag_help(kftrain::cli::view::k_table_formats) ==
          "Output format: table, json or yaml");
    auto text = kftrain::cli::view::parse_optional_output_format("", {OutputFormat::Json});
    REQUIRE(text.ok());
    CHECK_FALSE(text->has_value());
}

TEST_CASE("describe -o json|yaml is the status document with conditions and events",
          "[cli][output][cluster]") {
    FakeCluster cluster("pending-imagepull");
    json data = same_data({"describe", "mnist-ddp", "-n", "ml-training"}, cluster.env());
    CHECK(data["name"] == "mnist-ddp");
    CHECK(data["kind"] == "PyTorchJob");
    CHECK(data["replicas"].is_array());
    REQUIRE(data["events"].is_array());
    REQUIRE_FALSE(data["events"].empty());
    CHECK(data["events"].back()["reason"] == "BackOff");
    CHECK(data["events"].back()["kind"] == "Pod");
    CHECK(data["conditions"].is_array());
    // The document status -o json prints, plus what describe adds.
    auto status = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    REQUIRE(status.code == 0);
    const json status_data = json::parse(status.out);  // items() refers to it: keep it alive
    for (const auto& [key, value] : status_data.items()) {
        INFO(key);
        CHECK((data.contains(key) || key == "cost"));  // status prices a job; describe does not
    }

    FakeCluster trainjob("trainjob-unschedulable");
    json v2 = same_data({"describe", "mnist-trainjob", "-n", "ml-training"}, trainjob.env());
    CHECK(v2["runtime"] == json{{"kind", "ClusterTrainingRuntime"}, {"name", "torch-distributed"}});
    CHECK(v2["numNodes"] == 2);
    CHECK(v2["jobsStatus"].at(0)["name"] == "node");
}

TEST_CASE("describe -o json of a local job has each replica's command and environment",
          "[cli][output][local]") {
    kftrain::test::LocalJobs jobs;
    auto file = jobs.job_file("described", 2, {"--steps", "2"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_finished("described");
    auto run = jobs.kftrain({"describe", "described", "--local", "-o", "json"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    json data = json::parse(run.out);
    CHECK(data["state"] == "Succeeded");
    CHECK(data["backend"] == "local");
    CHECK(contains(data["stateDirectory"].get<std::string>(), "described"));
    REQUIRE(data["replicas"].size() == 2);
    const json& master = data["replicas"][0];
    CHECK(master["name"] == "master-0");
    CHECK(master["exitCode"] == 0);
    CHECK(master["command"] == json{kftrain::test::fake_replica(), "--steps", "2"});
    CHECK(master["environment"]["WORLD_SIZE"] == "2");
    CHECK(master["environment"]["RANK"] == "0");
    auto yaml = jobs.kftrain({"describe", "described", "--local", "-o", "yaml"});
    REQUIRE(yaml.code == 0);
    CHECK(kftrain::manifest::to_json(YAML::Load(yaml.out)) == data);
}

TEST_CASE("describe and version refuse an -o they do not offer", "[cli][output]") {
    for (const char* verb : {"describe", "version"}) {
        std::vector<std::string> args = {verb};
        if (std::string(verb) == "describe") {
            args.push_back("mnist-ddp");
        }
        args.insert(args.end(), {"-o", "wide"});
        FakeCluster cluster("running");
        auto run = run_kftrain(args, cluster.env());
        CHECK(run.code == 2);
        CHECK(run.err == "kftrain: error: -o/--output: must be json or yaml (got wide)\n");
        CHECK(cluster.calls().empty());
    }
}

TEST_CASE("version -o json|yaml gives kubectl version's clientVersion and asks no cluster",
          "[cli][output]") {
    FakeCluster cluster("running");
    json data = same_data({"version"}, cluster.env());
    auto text = run_kftrain({"--version"});
    REQUIRE(text.code == 0);
    CHECK(text.out == "kftrain " + data["clientVersion"]["version"].get<std::string>() + "\n");
    CHECK(contains(data["clientVersion"]["platform"].get<std::string>(), "linux/"));
    REQUIRE(data["kinds"].size() == 5);
    CHECK(data["kinds"][0] == json{{"kind", "PyTorchJob"},
                                   {"apiVersion", "kubeflow.org/v1"},
                                   {"supports", "Training Operator v1.3 to v1.9"}});
    CHECK(data["kinds"][1]["apiVersion"] == "trainer.kubeflow.org/v1alpha1");
    CHECK(data["kinds"][2]["kind"] == "TFJob");
    CHECK(data["kinds"][3] == json{{"kind", "XGBoostJob"},
                                   {"apiVersion", "kubeflow.org/v1"},
                                   {"supports", "Training Operator v1.9"}});
    CHECK(data["kinds"][4]["kind"] == "JAXJob");
    CHECK(cluster.calls().empty());
    // The text says the same.
    auto plain = run_kftrain({"version"});
    CHECK(plain.out ==
          "kftrain " + data["clientVersion"]["version"].get<std::string>() +
              "\nPyTorchJob apiVersion kubeflow.org/v1 (Training Operator v1.3 to v1.9)\n"
              "TrainJob apiVersion trainer.kubeflow.org/v1alpha1 (Kubeflow Trainer v2.2 to "
              "v2.3)\nTFJob apiVersion kubeflow.org/v1 (Training Operator v1.9)\n"
              "XGBoostJob apiVersion kubeflow.org/v1 (Training Operator v1.9)\n"
              "JAXJob apiVersion kubeflow.org/v1 (Training Operator v1.9)\n");
}

TEST_CASE("estimate -o yaml carries the data of estimate -o json, in its order",
          "[cli][output][estimate]") {
    json data = same_data({"estimate", "-f", kftrain::test::k_example_job, "--workers", "1,2,4"});
    CHECK(data["job"] == "mnist-ddp");
    CHECK(data["sizes"].size() == 3);
    auto yaml = run_kftrain(
        {"estimate", "-f", kftrain::test::k_example_job, "--workers", "1,2,4", "-o", "yaml"});
    CHECK(yaml.out.rfind("job: mnist-ddp\nmodel: ", 0) == 0);
}
