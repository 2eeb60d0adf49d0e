// `kftrain pipeline`: a Kubeflow Pipelines v2 pipeline (the compiled IR) whose one step trains
// the job with kftrain itself; the IR checker, known to accept the SDK's own compiled files;
// and the step's exact command line, run here with --local standing in for the cluster.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "backend/local/local_fixture.h"
#include "pipeline/ir_check.h"
#include "support/cli_runner.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/test_data.h"

using namespace kftrain::test;
using nlohmann::json;

namespace {

const std::string k_source = kftrain::test::source_dir();
const std::string k_kfp_examples = std::string(kftrain::test::katib_dir()) + "/../kfp-v2/examples";

std::vector<std::string> problems_of(const std::string& yaml) {
    return kftrain::pipeline::check_pipeline(YAML::Load(yaml));
}

// Fill the step's placeholders as KFP's launcher does: each input with its value, each
// output with a file of its own.
std::vector<std::string> step_command(const json& pipeline, const std::string& outputs,
                                      const std::map<std::string, std::string>& inputs) {
    const json& container = pipeline["deploymentSpec"]["executors"]["exec-train"]["container"];
    std::vector<std::string> argv;
    for (const auto& part : {container["command"], container["args"]}) {
        for (const auto& arg : part) {
            std::string text = arg.get<std::string>();
            for (const auto& [name, value] : inputs) {
                const std::string from = "{{$.inputs.parameters['" + name + "']}}";
                for (auto at = text.find(from); at != std::string::npos; at = text.find(from)) {
                    text.replace(at, from.size(), value);
                }
            }
            static const std::regex output(
                R"(\{\{\$\.outputs\.parameters\['([a-z]+)'\]\.output_file\}\})");
            text = std::regex_replace(text, output, outputs + "/$1/value");
            argv.push_back(text);
        }
    }
    return argv;
}

}  // namespace

TEST_CASE("the IR checker accepts every compiled pipeline the KFP SDK ships", "[pipeline]") {
    REQUIRE(std::filesystem::is_directory(k_kfp_examples));  // a missing reference fails
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(k_kfp_examples)) {
        if (entry.path().extension() != ".yaml") {
            continue;
        }
        INFO(entry.path());
        CHECK(problems_of(read_bytes(entry.path())) == std::vector<std::string>{});
        ++checked;
    }
    CHECK(checked >= 4);
}

TEST_CASE("the IR checker names what the backend would refuse", "[pipeline]") {
    const std::string good = read_bytes(k_kfp_examples + "/container_io.yaml");
    REQUIRE(problems_of(good).empty());
    auto broken = [&](const std::string& from, const std::string& to) {
        std::string text = good;
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
        return problems_of(text);
    };
    CHECK(broken("'{{$.inputs.parameters[''text'']}}'", "'{{$.inputs.parameters[''txt'']}}'") ==
          std::vector<std::string>{
              "deploymentSpec.executors.exec-container-io.container.command[1]: "
              "{{$.inputs.parameters['txt']... refers to no input parameter txt"});
    CHECK(broken("          name: comp-container-io", "          name: comp-other") ==
          std::vector<std::string>{
              "root.dag.tasks.container-io.componentRef.name: comp-other is not a component"});
    CHECK(broken("executorLabel: exec-container-io", "executorLabel: exec-x") ==
          std::vector<std::string>{"components.comp-container-io.executorLabel: exec-x is not an "
                                   "executor"});
    CHECK(broken("producerSubtask: container-io", "producerSubtask: nope") ==
          std::vector<std::string>{"root.dag.outputs.parameters.output_path: nope is not a task"});
    CHECK(broken("schemaVersion: 2.1.0", "schemaVersion: 3.0.0").size() == 1);
    CHECK_FALSE(problems_of("[1, 2]").empty());
    CHECK_FALSE(problems_of("components: 3\n").empty());
}

TEST_CASE("kftrain pipeline writes a checked pipeline for a PyTorchJob and a TrainJob",
          "[pipeline][cli]") {
    const auto pytorch = run_kftrain({"pipeline", "-f", k_source + "/examples/mnist-ddp.yaml",
                                      "--param", "trainer.lr", "--param", "replicas", "--image",
                                      "registry.example.com/kftrain-cli:1"});
    INFO(pytorch.err);
    REQUIRE(pytorch.code == 0);
    CHECK(matches_golden("pipeline-mnist-ddp.yaml", pytorch.out));
    CHECK(problems_of(pytorch.out).empty());
    const YAML::Node spec = YAML::Load(pytorch.out);
    const YAML::Node inputs = spec["root"]["inputDefinitions"]["parameters"];
    CHECK(inputs["replicas"]["parameterType"].Scalar() == "NUMBER_INTEGER");
    CHECK(inputs["replicas"]["defaultValue"].Scalar() == "4.0");  // as the SDK writes an int
    CHECK(inputs["trainer_lr"]["parameterType"].Scalar() == "NUMBER_DOUBLE");
    CHECK(inputs["job_yaml"]["defaultValue"].Scalar() ==
          read_bytes(k_source + "/examples/mnist-ddp.yaml"));

    const auto trainjob =
        run_kftrain({"pipeline", "-f", k_source + "/examples/python-ddp/trainjob.yaml", "--param",
                     "replicas", "--name", "python-ddp-training"});
    INFO(trainjob.err);
    REQUIRE(trainjob.code == 0);
    CHECK(matches_golden("pipeline-python-ddp-trainjob.yaml", trainjob.out));
    CHECK(problems_of(trainjob.out).empty());
}

TEST_CASE("kftrain pipeline refuses what cannot be an input, naming the flag", "[pipeline][cli]") {
    const std::string job = k_source + "/examples/mnist-ddp.yaml";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--param", "env"}, "--param env: a map"},
        {{"--param", "trainer.nope"}, "--param trainer.nope: not a job-file key"},
        {{"--param", "replicas", "--param", "replicas"}, "--param replicas: given twice"},
        {{"--image", "a b"}, "--image: must be an image reference"},
        {{"--image", ""}, "--image: must be an image reference"},
        // A live KFP placeholder would be replaced at run time, not passed as given.
        {{"--image", "reg/{{$.inputs.parameters['job_yaml']}}"},
         "--image: holds a pipeline placeholder"},
        {{"--set", "trainer.lr={{$.inputs.parameters['namespace']}}"},
         "--set trainer.lr={{$.inputs.parameters['namespace']}}: holds a pipeline placeholder"},
        {{"--set", "trainer.dataset={{$.inputs.parameters['pipelinechannel--undeclared']}}"},
         "holds a pipeline placeholder"},
        {{"--name", "x\nroot: evil"}, "--name: must be at most 128 lower-case letters"},
        {{"--name", "Mnist"}, "--name: must be at most 128 lower-case letters"},
        {{"-o", "xml"}, "-o/--output: must be yaml or json"},
    };
    const auto local = run_kftrain({"pipeline", "-f", job, "--set", "backend=local"});
    CHECK(local.code == 2);
    CHECK_THAT(local.err,
               Catch::Contains("--set backend: a pipeline step submits the job to its cluster"));
    const auto own =
        run_kftrain({"pipeline", "-f", k_source + "/examples/python-ddp/pytorchjob.yaml", "--param",
                     "trainer.lr"});
    CHECK(own.code == 2);
    CHECK_THAT(own.err, Catch::Contains("--param trainer.lr: the job runs its own program"));
    for (const auto& [flags, message] : cases) {
        std::vector<std::string> args = {"pipeline", "-f", job};
        args.insert(args.end(), flags.begin(), flags.end());
        const auto run = run_kftrain(args);
        INFO(flags.front() << ": " << run.err);
        CHECK(run.code == 2);
        CHECK_THAT(run.err, Catch::Contains(message));
        CHECK(run.out.empty());
    }
}

TEST_CASE("the pipeline step's own command line trains, writes its outputs and fails with the job",
          "[pipeline][local][cli]") {
    LocalJobs jobs;
    for (const bool fails : {false, true}) {
        INFO((fails ? "a failing job" : "a job that succeeds"));
        std::vector<std::string> replica = {"--steps", "4", "--step-ms", "10"};
        if (fails) {
            replica.insert(replica.end(), {"--fail-rank", "0"});
        }
        const std::string name = fails ? "step-fails" : "step-trains";
        const std::string file =
            jobs.job_file(name, 2, replica, fails ? "restartPolicy: Never\n" : "");
        const auto made =
            jobs.kftrain({"pipeline", "-f", file, "--param", "replicas", "-o", "json"});
        REQUIRE(made.code == 0);
        const json pipeline = json::parse(made.out);
        const std::string outputs = jobs.dir() + "/outputs-" + name;
        auto argv = step_command(
            pipeline, outputs,
            {{"job_yaml", read_bytes(file)}, {"namespace", "default"}, {"replicas", "3"}});
        REQUIRE(argv.front() == "kftrain");
        argv.erase(argv.begin());
        argv.insert(argv.begin(), "--local");  // standing in for the cluster
        const auto step = jobs.kftrain(argv);
        INFO(step.out << step.err);
        CHECK(step.code == (fails ? 1 : 0));
        CHECK(read_bytes(outputs + "/state/value") == (fails ? "Failed" : "Succeeded"));
        const json metrics = json::parse(read_bytes(outputs + "/metrics/value"));
        CHECK(metrics.is_object());
        if (!fails) {
            CHECK(metrics.contains("loss"));
            CHECK(metrics.contains("accuracy"));
        }
        // The input replicas=3 reached the job.
        const auto status = jobs.kftrain({"status", name, "--local", "-o", "json"});
        INFO(status.err);
        CHECK(json::parse(status.out)["replicas"].size() == 3);
    }
}

TEST_CASE("submit's pipeline outputs need a job to wait for", "[pipeline][cli][submit]") {
    const std::string job = k_source + "/examples/mnist-ddp.yaml";
    for (const std::string flag : {"--state-out", "--metrics-out"}) {
        const auto alone = run_kftrain({"submit", "-f", job, flag, "/tmp/x"});
        CHECK(alone.code == 2);
        CHECK(alone.err == "kftrain: error: " + flag + ": needs --follow or --wait (got /tmp/x)\n");
        const auto piped = run_kftrain({"submit", "-f", job, "--wait", flag, "-"});
        CHECK(piped.code == 2);
        CHECK_THAT(piped.err, Catch::Contains(flag + ": standard input is read only by -f"));
    }
}
