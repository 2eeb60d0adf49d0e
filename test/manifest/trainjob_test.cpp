#include <catch2/catch.hpp>

#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/starter.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/jobs.h"
#include "support/paths.h"
#include "support/test_data.h"

using namespace kftrain;
using nlohmann::json;

namespace {

// --kind TrainJob, as most jobs here are loaded.
const manifest::Overrides k_as_trainjob = test::set_flags({}, manifest::JobKind::TrainJob);

// The one patch kftrain writes: the pod template of the "node" replicated job.
json node_pod(const json& doc) {
    const json& patch = doc["spec"]["runtimePatches"][0];
    REQUIRE(patch["manager"] == "kftrain.io/kftrain");
    const json& job = patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0];
    REQUIRE(job["name"] == "node");
    return job["template"]["spec"]["template"];
}

}  // namespace

TEST_CASE("render of the TrainJob example matches the golden TrainJob", "[manifest]") {
    auto rendered = test::try_render_job(test::load_job(test::read_example("mnist-trainjob.yaml")));
    REQUIRE(rendered);
    CHECK(test::matches_golden("mnist-trainjob.yaml", manifest::to_yaml(*rendered)));
}

TEST_CASE("kind TrainJob maps every job-file key to its TrainJob place", "[manifest]") {
    // The PyTorchJob example, as a TrainJob: the same file, kind from --kind.
    json doc =
        test::render_json(test::load_job(test::read_example("mnist-ddp.yaml"), k_as_trainjob));
    CHECK(doc["apiVersion"] == "trainer.kubeflow.org/v1alpha1");
    CHECK(doc["kind"] == "TrainJob");
    CHECK(doc["metadata"]["labels"]["team"] == "vision");
    CHECK(doc["metadata"]["annotations"]["kftrain.io/owner"] == "ml-platform");
    const json& spec = doc["spec"];
    CHECK(spec["runtimeRef"] == json{{"apiGroup", "trainer.kubeflow.org"},
                                     {"kind", "ClusterTrainingRuntime"},
                                     {"name", "torch-distributed"}});
    CHECK(spec["activeDeadlineSeconds"] == 7200);
    CHECK_FALSE(spec.contains("suspend"));
    const json& trainer = spec["trainer"];
    CHECK(trainer["image"] == "kftrain/trainer:0.1.0");
    CHECK(trainer["numNodes"] == 4);
    CHECK(trainer["numProcPerNode"] == 1);
    CHECK(trainer["command"] == json{"kftrain-trainer"});
    CHECK(trainer["args"].back() == "json");
    CHECK(trainer["resourcesPerNode"] == json{{"requests", {{"cpu", "4"}, {"memory", "8Gi"}}},
                                              {"limits", {{"cpu", "4"}, {"memory", "12Gi"}}}});
    // MLflow settings reach the trainer's env, credentials by Secret reference only.
    json token = json::object();
    for (const auto& var : trainer["env"]) {
        if (var["name"] == "MLFLOW_TRACKING_TOKEN") {
            token = var;
        }
    }
    CHECK(token["valueFrom"]["secretKeyRef"]["name"] == "mlflow-credentials");

    json pod = node_pod(doc);
    CHECK(pod["metadata"]["labels"]["kftrain.io/job-name"] == "mnist-ddp");
    CHECK(
        pod["spec"]["containers"] ==
        json::array({{{"name", "node"},
                      {"volumeMounts",
                       json::array({{{"name", "data"}, {"mountPath", "/data"}, {"readOnly", true}},
                                    {{"name", "checkpoints"}, {"mountPath", "/checkpoints"}}})}}}));
    CHECK(pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "mnist-data");
    CHECK(pod["spec"]["imagePullSecrets"] == json::array({{{"name", "registry-credentials"}}}));
    CHECK(pod["spec"]["nodeSelector"]["node.kubernetes.io/instance-type"] == "c6i.2xlarge");
    CHECK(pod["spec"]["tolerations"][0]["key"] == "dedicated");
}

TEST_CASE("a TrainJob takes its runtime, suspend and GPUs from the job file", "[manifest]") {
    json doc = test::render_json(
        test::load_job("name: a\nruntime: TrainingRuntime/team-torch\nreplicas: 3\n"
                       "resources:\n  gpus: 2\nrunPolicy:\n  suspend: true\n",
                       k_as_trainjob));
    CHECK(doc["spec"]["runtimeRef"]["kind"] == "TrainingRuntime");
    CHECK(doc["spec"]["runtimeRef"]["name"] == "team-torch");
    CHECK(doc["spec"]["suspend"] == true);
    CHECK(doc["spec"]["trainer"]["numNodes"] == 3);
    CHECK(doc["spec"]["trainer"]["resourcesPerNode"]["limits"]["nvidia.com/gpu"] == 2);
    // numProcPerNode is a number in a TrainJob: auto (or unset) leaves Trainer's default.
    CHECK_FALSE(doc["spec"]["trainer"].contains("numProcPerNode"));
    CHECK_FALSE(test::render_json(test::load_job("name: a\nnprocPerNode: auto\n",
                                                 k_as_trainjob))["spec"]["trainer"]
                    .contains("numProcPerNode"));
}

TEST_CASE("rendered TrainJobs are valid against the Trainer v2.3 CRD", "[manifest]") {
    std::string crd = kftrain::test::trainjob_crd_file();
    if (!test::crd_readable(crd)) {
        return;
    }
    const std::vector<std::pair<std::string, manifest::JobSpec>> jobs = {
        {"TrainJob example", test::load_job(test::read_example("mnist-trainjob.yaml"))},
        {"PyTorchJob example as a TrainJob",
         test::load_job(test::read_example("mnist-ddp.yaml"), k_as_trainjob)},
        {"minimal", test::load_job("name: a\n", k_as_trainjob)},
        {"one node", test::load_job("name: a\nreplicas: 1\nnprocPerNode: \"4\"\n", k_as_trainjob)},
        {"namespaced runtime, GPUs, suspended",
         test::load_job("name: a\nruntime: TrainingRuntime/mine\nresources:\n  gpus: 8\n"
                        "runPolicy:\n  suspend: true\n  activeDeadlineSeconds: 60\n",
                        k_as_trainjob)},
        {"custom command",
         test::load_job("name: a\ncommand: [python, train.py]\nargs: ['--epochs', '3']\n",
                        k_as_trainjob)},
        {"config map volume",
         test::load_job(
             "name: a\nvolumes:\n  - name: cfg\n    configMap: settings\n    mountPath: /cfg\n",
             k_as_trainjob)},
    };
    for (const auto& [what, spec] : jobs) {
        INFO(what);
        auto problems = test::check_against_crd(test::render_json(spec), crd);
        CHECK(problems == std::vector<std::string>{});
    }
}

TEST_CASE("a TrainJob refuses each key it cannot express, naming it and why", "[manifest]") {
    struct Case {
        std::string text;
        std::string error;
    };
    const std::vector<Case> cases = {
        {"name: a\nelasticPolicy:\n  maxReplicas: 4\n",
         "job.yaml:2: elasticPolicy: has no TrainJob equivalent: Trainer v2 has no elastic "
         "training (remove it, or keep kind PyTorchJob)"},
        {"name: a\nrunPolicy:\n  cleanPodPolicy: All\n",
         "job.yaml:3: runPolicy.cleanPodPolicy: has no TrainJob equivalent: a TrainJob's pods are "
         "kept or removed by its runtime's JobSet (remove it, or keep kind PyTorchJob)"},
        {"name: a\nrestartPolicy: OnFailure\n",
         "job.yaml:2: restartPolicy: has no TrainJob equivalent: a TrainJob's pods restart as its "
         "runtime's JobSet says (failurePolicy); only ExitCode, with a retry budget (--retries), "
         "becomes JobSet rules (docs/restarts.md) (remove it, or keep kind PyTorchJob)"},
        {"name: a\nrestartPolicy: ExitCode\n",
         "job.yaml:2: restartPolicy: has no TrainJob equivalent: a TrainJob's pods restart as its "
         "runtime's JobSet says (failurePolicy); only ExitCode, with a retry budget (--retries), "
         "becomes JobSet rules (docs/restarts.md) (remove it, or keep kind PyTorchJob)"},
        {"name: a\nnprocPerNode: gpu\nresources:\n  gpus: 1\n",
         "job.yaml:2: nprocPerNode: has no TrainJob equivalent: a TrainJob's numProcPerNode is a "
         "number; leave nprocPerNode unset (or auto) for one process per GPU, or per CPU of "
         "resources when there is no GPU (remove it, or keep kind PyTorchJob)"},
        {"name: a\npriorityClassName: high\nrunPolicy:\n  cleanPodPolicy: All\n",
         "2 job-file keys do not fit a TrainJob (remove them, or keep kind PyTorchJob):\n"
         "  job.yaml:2: priorityClassName: has no TrainJob equivalent: runtimePatches cannot set a "
         "pod's priorityClassName in Trainer v2.3; the runtime, or Kueue's priority class, does\n"
         "  job.yaml:4: runPolicy.cleanPodPolicy: has no TrainJob equivalent: a TrainJob's pods "
         "are kept or removed by its runtime's JobSet"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto rendered = test::try_render_job(test::load_job(c.text, k_as_trainjob));
        REQUIRE_FALSE(rendered);
        CHECK(rendered.error() == c.error);
        // The same file is a valid PyTorchJob.
        CHECK(test::try_render_job(
            test::load_job(c.text, test::set_flags({}, manifest::JobKind::PyTorchJob))));
    }
}

TEST_CASE("a refused key set with --set is named by its flag", "[manifest]") {
    auto rendered = test::try_render_job(test::load_job(
        "name: a\n",
        test::set_flags({"elasticPolicy.maxReplicas=3"}, manifest::JobKind::TrainJob)));
    REQUIRE_FALSE(rendered);
    CHECK(rendered.error() ==
          "--set elasticPolicy.maxReplicas: has no TrainJob equivalent: Trainer v2 has no elastic "
          "training (remove it, or keep kind PyTorchJob)");
}

TEST_CASE("a template of the other kind is refused, naming both kinds", "[manifest]") {
    auto spec = test::load_job("name: a\n", k_as_trainjob);
    auto rendered =
        manifest::render_job(spec, manifest::default_template(manifest::JobKind::PyTorchJob));
    REQUIRE_FALSE(rendered);
    CHECK(rendered.error() ==
          "templates/pytorchjob.yaml: the template makes a PyTorchJob but the job's kind is "
          "TrainJob (set kind in the job file, or --kind, to match the template)");
}

TEST_CASE("a TrainJob's name leaves room for its node pods' host names", "[manifest]") {
    std::string name(55, 'a');
    manifest::Overrides overrides;
    overrides.kind = manifest::JobKind::TrainJob;
    auto job = manifest::load_job_text("name: " + name + "\nreplicas: 12\n", "job.yaml", overrides);
    REQUIRE_FALSE(job);
    CHECK(job.error() == "job.yaml:1: name: too long for 12 replicas: the node pod's host name " +
                             name + "-node-0-11 would exceed 63 characters (got " + name + ")");
}

TEST_CASE("the TrainJob starter file loads as a TrainJob and renders", "[manifest]") {
    std::string text = manifest::starter_job_file("mnist", manifest::JobKind::TrainJob);
    CHECK(text.find("\nkind: TrainJob\n") != std::string::npos);
    CHECK(text.find("runtime: torch-distributed") != std::string::npos);
    // Keys a TrainJob cannot express are not offered.
    CHECK(text.find("elasticPolicy") == std::string::npos);
    CHECK(text.find("cleanPodPolicy") == std::string::npos);
    auto spec = test::load_job(text);
    CHECK(spec.kind == manifest::JobKind::TrainJob);
    CHECK(test::render_json(spec)["spec"]["trainer"]["numNodes"] == 2);
}
