#include "tune/experiment.h"

#include <catch2/catch.hpp>

#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/paths.h"
#include "support/test_data.h"
#include "tune/katib_checks.h"
#include "tune/tune_spec.h"

using namespace kftrain;
using nlohmann::json;

namespace {

const std::vector<std::string> k_params = {"lr=0.001:0.1:log", "momentum=0.5:0.95",
                                           "batchSize=32,64,128"};

// The example: mnist-ddp tuned for accuracy with a goal, as either kind.
YAML::Node experiment(manifest::JobKind kind) {
    manifest::Overrides overrides;
    overrides.kind = kind;
    auto job = manifest::load_job_file(
        std::string(kftrain::test::source_dir()) + "/examples/mnist-ddp.yaml", overrides);
    REQUIRE(job);
    tune::TuneFlags flags;
    flags.params = k_params;
    flags.objective = "accuracy:maximize";
    flags.goal = 0.99;
    flags.name = "mnist-tune";
    auto spec = tune::build_tune_spec(*job, flags);
    REQUIRE(spec);
    REQUIRE(tune::check_tune_spec(*spec));
    auto rendered = tune::render_experiment(*job, *spec, manifest::default_template(kind));
    REQUIRE(rendered);
    return *rendered;
}

json katib_example(const std::string& name) {
    const std::string path = std::string(kftrain::test::katib_dir()) + "/" + name;
    REQUIRE(test::crd_readable(path));
    return manifest::to_json(YAML::LoadFile(path));
}

// Return the trialSpec with every placeholder replaced as Katib does for one trial: in the
// trialSpec's JSON text, so a value stays the string its placeholder was.
json substituted_trial(const YAML::Node& doc) {
    std::string text = manifest::to_json(doc["spec"]["trialTemplate"]["trialSpec"]).dump();
    const std::vector<std::pair<std::string, std::string>> values = {
        {"${trialParameters.trialName}", "mnist-tune-x7k2p9qs"},
        {"${trialParameters.lr}", "0.0123"},
        {"${trialParameters.momentum}", "0.71"},
        {"${trialParameters.batchSize}", "64"}};
    for (const auto& [placeholder, value] : values) {
        for (auto at = text.find(placeholder); at != std::string::npos;
             at = text.find(placeholder)) {
            text.replace(at, placeholder.size(), value);
        }
    }
    json trial = json::parse(text);
    trial["metadata"]["name"] = "mnist-tune-x7k2p9qs";
    return trial;
}

std::vector<std::string> keys(const json& object) {
    std::vector<std::string> out;
    for (const auto& item : object.items()) {
        out.push_back(item.key());
    }
    return out;
}

}  // namespace

TEST_CASE("the Experiment of a PyTorchJob matches the golden one", "[tune]") {
    CHECK(test::matches_golden("mnist-tune-experiment.yaml",
                               manifest::to_yaml(experiment(manifest::JobKind::PyTorchJob))));
}

TEST_CASE("the Experiment of a TrainJob matches the golden one", "[tune]") {
    CHECK(test::matches_golden("mnist-tune-trainjob-experiment.yaml",
                               manifest::to_yaml(experiment(manifest::JobKind::TrainJob))));
}

TEST_CASE("the Experiment has the shape of Katib's own examples", "[tune]") {
    const std::vector<std::pair<manifest::JobKind, std::string>> kinds = {
        {manifest::JobKind::PyTorchJob, "example-pytorchjob-mnist.yaml"},
        {manifest::JobKind::TrainJob, "example-trainjob-pytorch.yaml"}};
    for (const auto& [kind, example_file] : kinds) {
        INFO(example_file);
        const json ours = manifest::to_json(experiment(kind));
        const json example = katib_example(example_file);
        CHECK(ours["apiVersion"] == example["apiVersion"]);
        CHECK(ours["kind"] == example["kind"]);
        for (const auto& key : keys(example["spec"])) {
            INFO(key);
            REQUIRE(ours["spec"].contains(key));
            CHECK(ours["spec"][key].type() == example["spec"][key].type());
        }
        const json& template_ours = ours["spec"]["trialTemplate"];
        const json& template_example = example["spec"]["trialTemplate"];
        CHECK(template_ours["primaryContainerName"] == template_example["primaryContainerName"]);
        CHECK(template_ours["trialSpec"]["apiVersion"] ==
              template_example["trialSpec"]["apiVersion"]);
        CHECK(template_ours["trialSpec"]["kind"] == template_example["trialSpec"]["kind"]);
        // Katib keeps feasible spaces as strings.
        for (const auto& parameter : ours["spec"]["parameters"]) {
            for (const auto& bound : {"min", "max", "step"}) {
                if (parameter["feasibleSpace"].contains(bound)) {
                    CHECK(parameter["feasibleSpace"][bound].is_string());
                }
            }
        }
        CHECK(ours["spec"]["objective"]["goal"].is_number());
        CHECK(ours["spec"]["maxTrialCount"].is_number_integer());
    }
}

TEST_CASE("each tuned key becomes a placeholder in the trainer's arguments", "[tune]") {
    const json ours = manifest::to_json(experiment(manifest::JobKind::PyTorchJob));
    const json& master =
        ours["spec"]["trialTemplate"]["trialSpec"]["spec"]["pytorchReplicaSpecs"]["Master"];
    const json& args = master["template"]["spec"]["containers"][0]["args"];
    auto after = [&args](const std::string& flag) {
        for (std::size_t i = 0; i + 1 < args.size(); ++i) {
            if (args[i] == flag) {
                return args[i + 1].get<std::string>();
            }
        }
        return std::string("(absent)");
    };
    CHECK(after("--lr") == "${trialParameters.lr}");
    CHECK(after("--momentum") == "${trialParameters.momentum}");
    CHECK(after("--batch-size") == "${trialParameters.batchSize}");
    CHECK(after("--metric-lines") == "true");
    CHECK(after("--checkpoint-dir") == "/checkpoints/mnist-ddp/${trialParameters.trialName}");
    CHECK(master["template"]["metadata"]["labels"]["kftrain.io/job-name"] ==
          "${trialParameters.trialName}");
}

TEST_CASE("a trial, once Katib fills its values in, is a valid job of its kind", "[tune]") {
    const std::vector<std::pair<manifest::JobKind, std::string>> kinds = {
        {manifest::JobKind::PyTorchJob, kftrain::test::pytorchjob_crd_file()},
        {manifest::JobKind::TrainJob, kftrain::test::trainjob_crd_file()}};
    for (const auto& [kind, crd] : kinds) {
        INFO(crd);
        if (!test::crd_readable(crd)) {
            continue;
        }
        const json trial = substituted_trial(experiment(kind));
        CHECK(test::check_against_crd(trial, crd) == std::vector<std::string>{});
    }
}

TEST_CASE("the rendered Experiment passes Katib's trial template checks", "[tune]") {
    CHECK(tune::check_experiment(experiment(manifest::JobKind::PyTorchJob)));
    CHECK(tune::check_experiment(experiment(manifest::JobKind::TrainJob)));
}

TEST_CASE("Katib's trial template checks catch a broken Experiment", "[tune]") {
    struct Case {
        std::string name;
        std::function<void(YAML::Node&)> change;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"two trialParameters of one reference",
         [](YAML::Node& e) {
             YAML::Node extra;
             extra["name"] = "dropout";
             extra["reference"] = "lr";
             e["spec"]["trialTemplate"]["trialParameters"].push_back(extra);
         },
         "spec.trialTemplate.trialParameters[4]: dropout (lr) is a duplicate"},
        {"a placeholder without a trialParameter",
         [](YAML::Node& e) {
             YAML::Node params = e["spec"]["trialTemplate"]["trialParameters"];
             YAML::Node kept;
             for (std::size_t i = 0; i + 1 < params.size(); ++i) {
                 kept.push_back(params[i]);
             }
             e["spec"]["trialTemplate"]["trialParameters"] = kept;
         },
         "spec.trialTemplate: ${trialParameters.batchSize} has no trialParameter"},
        {"a reference to no parameter",
         [](YAML::Node& e) {
             e["spec"]["trialTemplate"]["trialParameters"][1]["reference"] = "lrate";
         },
         "spec.trialTemplate.trialParameters[1].reference: lrate is not in spec.parameters"},
        {"a named trialSpec",
         [](YAML::Node& e) { e["spec"]["trialTemplate"]["trialSpec"]["metadata"]["name"] = "x"; },
         "spec.trialTemplate: metadata.name and metadata.namespace in the trialSpec must be "
         "omitted"},
        {"no primary container",
         [](YAML::Node& e) { e["spec"]["trialTemplate"].remove("primaryContainerName"); },
         "spec.trialTemplate.primaryContainerName: must be specified"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        YAML::Node doc = YAML::Clone(experiment(manifest::JobKind::PyTorchJob));
        c.change(doc);
        auto checked = tune::check_experiment(doc);
        REQUIRE_FALSE(checked);
        CHECK(checked.error() == c.message);
    }
}
