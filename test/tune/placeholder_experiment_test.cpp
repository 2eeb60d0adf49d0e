// The Katib Experiment of a program of its own (examples/python-ddp/tune.yaml): its
// ${trialParameters.lr} stays in the trialSpec for Katib, with a trialParameter that refers to
// the parameter, for both kinds, and passes Katib's webhook rules.
#include <catch2/catch.hpp>

#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/paths.h"
#include "support/test_data.h"
#include "tune/experiment.h"
#include "tune/katib_checks.h"
#include "tune/tune_spec.h"

using namespace kftrain;
using nlohmann::json;

namespace {

YAML::Node script_experiment(manifest::JobKind kind) {
    manifest::Overrides overrides;
    overrides.kind = kind;
    auto job = manifest::load_job_file(kftrain::test::k_tune_example_job, overrides);
    REQUIRE(job);
    auto spec = tune::build_tune_spec(*job, {});
    REQUIRE(spec);
    REQUIRE(tune::check_tune_spec(*spec));
    auto rendered = tune::render_experiment(*job, *spec, manifest::default_template(kind));
    REQUIRE(rendered);
    return *rendered;
}

const std::vector<std::pair<manifest::JobKind, std::string>> k_example_kinds = {
    {manifest::JobKind::PyTorchJob, "python-ddp-tune-experiment.yaml"},
    {manifest::JobKind::TrainJob, "python-ddp-tune-trainjob-experiment.yaml"}};

// The primary container of the trialSpec: the Master's, or the TrainJob's trainer.
json container_args(const json& trial_spec) {
    if (trial_spec.at("kind") == "TrainJob") {
        return trial_spec.at("spec").at("trainer").at("args");
    }
    return trial_spec.at("spec")
        .at("pytorchReplicaSpecs")
        .at("Master")
        .at("template")
        .at("spec")
        .at("containers")
        .at(0)
        .at("args");
}

}  // namespace

TEST_CASE("the Experiment of a script with placeholders matches the golden one, both kinds",
          "[tune][placeholders]") {
    for (const auto& [kind, golden] : k_example_kinds) {
        INFO(golden);
        CHECK(test::matches_golden(golden, manifest::to_yaml(script_experiment(kind))));
    }
}

TEST_CASE("a script's placeholders stay for Katib, each with its trialParameter",
          "[tune][placeholders]") {
    for (const auto& [kind, golden] : k_example_kinds) {
        INFO(golden);
        const YAML::Node doc = script_experiment(kind);
        CHECK(tune::check_experiment(doc));
        const json ours = manifest::to_json(doc);
        const json& spec = ours.at("spec");
        const json args = container_args(spec.at("trialTemplate").at("trialSpec"));
        CHECK(args == json{"--epochs", "2", "--samples", "512", "--batch-size", "32", "--lr",
                           "${trialParameters.lr}"});
        const json& trial_parameters = spec.at("trialTemplate").at("trialParameters");
        REQUIRE(trial_parameters.size() == 2);
        CHECK(trial_parameters[1] ==
              json{{"name", "lr"},
                   {"description", "lr: a value of the job's own command, args or env"},
                   {"reference", "lr"}});
        CHECK(spec.at("parameters")[0].at("parameterType") == "double");
        CHECK(spec.at("parameters")[0].at("feasibleSpace").at("distribution") == "logUniform");
        // The script prints accuracy and loss, but kftrain asks Katib for the objective alone.
        CHECK(spec.at("objective") ==
              json{{"type", "maximize"}, {"objectiveMetricName", "accuracy"}});
    }
}

TEST_CASE("a script's trial, once Katib fills lr in, is a valid job of its kind",
          "[tune][placeholders]") {
    for (const auto& [kind, golden] : k_example_kinds) {
        const std::string crd = kind == manifest::JobKind::TrainJob
                                    ? kftrain::test::trainjob_crd_file()
                                    : kftrain::test::pytorchjob_crd_file();
        INFO(crd);
        if (!test::crd_readable(crd)) {
            continue;
        }
        const YAML::Node doc = script_experiment(kind);
        std::string text = manifest::to_json(doc["spec"]["trialTemplate"]["trialSpec"]).dump();
        for (const auto& [placeholder, value] : std::vector<std::pair<std::string, std::string>>{
                 {"${trialParameters.trialName}", "python-ddp-tune-x7k2p9qs"},
                 {"${trialParameters.lr}", "0.0123"}}) {
            for (auto at = text.find(placeholder); at != std::string::npos;
                 at = text.find(placeholder)) {
                text.replace(at, placeholder.size(), value);
            }
        }
        json trial = json::parse(text);
        trial["metadata"]["name"] = "python-ddp-tune-x7k2p9qs";
        CHECK(test::check_against_crd(trial, crd) == std::vector<std::string>{});
    }
}
