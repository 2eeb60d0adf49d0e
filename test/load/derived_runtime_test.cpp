// A TrainJob's retry budget: the TrainingRuntime derived from its runtime, checked against
// Trainer v2.3's own runtimes and CRD.

#include "load/derived_runtime.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "manifest/retries.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/jobs.h"
#include "support/paths.h"

using namespace kftrain;
using nlohmann::json;

namespace {

std::string trainer_dir() {
    return std::filesystem::path(test::trainjob_crd_file()).parent_path().string();
}

manifest::JobSpec trainjob(const std::string& extra) {
    return test::load_job("name: a\nnamespace: team-a\nkind: TrainJob\n" + extra);
}

}  // namespace

TEST_CASE("the retries of --retries N map to backoffLimit N+1 and back, 0 to 0", "[retries]") {
    CHECK(manifest::backoff_limit_for_retries(0) == 0);
    CHECK(manifest::backoff_limit_for_retries(1) == 2);
    CHECK(manifest::backoff_limit_for_retries(manifest::k_default_retries) == 4);
    CHECK(manifest::backoff_limit_for_retries(manifest::k_max_retries) == 2147483647);
    for (int retries : {0, 1, 3, 100}) {
        CHECK(manifest::retries_of_backoff_limit(manifest::backoff_limit_for_retries(retries)) ==
              retries);
    }
    CHECK(manifest::retries_of_backoff_limit(1) == 0);  // the operator fails at the 1st restart
    CHECK(manifest::job_retries(std::nullopt) == std::nullopt);
}

TEST_CASE("kftrain's copy of Trainer's default runtimes is the reference's", "[retries]") {
    const std::string dir = trainer_dir();
    const std::vector<std::pair<std::string, std::string>> runtimes = {
        {"torch-distributed", dir + "/torch_distributed.yaml"},
        {"jax-distributed", dir + "/runtimes/jax_distributed.yaml"},
        {"xgboost-distributed", dir + "/runtimes/xgboost_distributed.yaml"},
    };
    for (const auto& [name, file] : runtimes) {
        INFO(file);
        REQUIRE(std::filesystem::exists(file));  // the reference is part of CI's checkout
        const json reference = manifest::to_json(YAML::LoadFile(file));
        auto builtin = load::builtin_runtime(name);
        REQUIRE(builtin);
        CHECK(*builtin == reference);
    }
    CHECK_FALSE(load::builtin_runtime("deepspeed-distributed"));
}

TEST_CASE("the derived runtime holds the budget and Trainer's CRD accepts it", "[retries]") {
    const manifest::JobSpec spec = trainjob("runPolicy:\n  backoffLimit: 3\n");
    auto derived = load::derive_runtime(spec, *load::builtin_runtime("torch-distributed"));
    REQUIRE(derived);
    const json doc = manifest::to_json(derived->manifest);
    CHECK(doc["kind"] == "TrainingRuntime");
    CHECK(doc["metadata"]["namespace"] == "team-a");
    CHECK(doc["metadata"]["name"] == derived->name);
    CHECK(derived->name.rfind("torch-distributed-", 0) == 0);
    CHECK(doc["metadata"]["annotations"][load::k_derived_from_annotation] == "torch-distributed");
    CHECK(doc["metadata"]["labels"]["trainer.kubeflow.org/framework"] == "torch");
    const json& jobset = doc["spec"]["template"]["spec"];
    CHECK(jobset["failurePolicy"]["maxRestarts"] == 2);  // backoffLimit 3: 2 retries
    CHECK(jobset["replicatedJobs"][0]["template"]["spec"]["backoffLimit"] == 0);
    CHECK(doc["spec"]["mlPolicy"] == json{{"numNodes", 1}, {"torch", json::object()}});

    const std::string crd = trainer_dir() + "/trainer.kubeflow.org_trainingruntimes.yaml";
    REQUIRE(test::crd_readable(crd));
    CHECK(test::check_against_crd(doc, crd) == std::vector<std::string>{});

    // Its name is its content: the same budget, the same runtime; another, another.
    auto again = load::derive_runtime(spec, *load::builtin_runtime("torch-distributed"));
    CHECK(again->name == derived->name);
    auto other = load::derive_runtime(trainjob("runPolicy:\n  backoffLimit: 5\n"),
                                      *load::builtin_runtime("torch-distributed"));
    CHECK(other->name != derived->name);

    YAML::Node trainjob_doc = YAML::Load(
        "spec:\n  runtimeRef:\n    apiGroup: trainer.kubeflow.org\n    kind: "
        "ClusterTrainingRuntime\n    name: torch-distributed\n");
    load::refer_to_runtime(trainjob_doc, *derived);
    CHECK(trainjob_doc["spec"]["runtimeRef"]["kind"].as<std::string>() == "TrainingRuntime");
    CHECK(trainjob_doc["spec"]["runtimeRef"]["name"].as<std::string>() == derived->name);
}

TEST_CASE("a runtime kftrain cannot derive from is named in the error", "[retries]") {
    const manifest::JobSpec spec = trainjob("runPolicy:\n  backoffLimit: 2\n");
    for (const json& base : {json(nullptr), json{{"spec", 3}}, json{{"spec", {{"mlPolicy", {}}}}},
                             json{{"spec", {{"template", {{"spec", {{"replicatedJobs", 1}}}}}}}}}) {
        INFO(base.dump());
        auto derived = load::derive_runtime(spec, base);
        REQUIRE_FALSE(derived);
        CHECK(derived.error().rfind("runtime torch-distributed: ", 0) == 0);
    }
}

TEST_CASE("restartPolicy ExitCode becomes JobSet rules: 1-127 fail the job, 128 and up retry",
          "[retries]") {
    const manifest::JobSpec spec =
        trainjob("restartPolicy: ExitCode\nrunPolicy:\n  backoffLimit: 3\n");
    auto derived = load::derive_runtime(spec, *load::builtin_runtime("torch-distributed"));
    REQUIRE(derived);
    const json doc = manifest::to_json(derived->manifest);
    const json& jobset = doc["spec"]["template"]["spec"];
    CHECK(jobset["failurePolicy"]["rules"] == json::parse(R"([{"name": "permanentExitCode",
        "action": "FailJobSet", "onJobFailureReasons": ["PodFailurePolicy"]}])"));
    const json& job = jobset["replicatedJobs"][0]["template"]["spec"];
    const json& rule = job["podFailurePolicy"]["rules"][0];
    CHECK(rule["action"] == "FailJob");
    CHECK(rule["onExitCodes"]["operator"] == "In");
    REQUIRE(rule["onExitCodes"]["values"].size() == 127);
    CHECK(rule["onExitCodes"]["values"].front() == 1);
    CHECK(rule["onExitCodes"]["values"].back() == 127);
    CHECK(job["template"]["spec"]["restartPolicy"] == "Never");  // podFailurePolicy wants it
    const std::string crd = trainer_dir() + "/trainer.kubeflow.org_trainingruntimes.yaml";
    CHECK(test::check_against_crd(doc, crd) == std::vector<std::string>{});
}
