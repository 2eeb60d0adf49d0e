// XGBoostJob, JAXJob and the TrainJob runtimes of other frameworks: what each renders, checked
// against its CRD, and what each refuses.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "manifest/framework.h"
#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/starter.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/jobs.h"
#include "support/test_data.h"
#include "util/text.h"

using namespace kftrain;
using nlohmann::json;

namespace {

// Load and render a job file's text; the error is that of the step that failed.
util::Result<YAML::Node> try_render_text(const std::string& text) {
    auto job = test::try_load_job(text);
    if (!job) {
        return job.error_value();
    }
    return test::try_render_job(*job);
}

const std::string k_own = "command: [python3, train.py]\n";

}  // namespace

TEST_CASE("an XGBoostJob has one Master and replicas-1 Workers in container xgboost",
          "[manifest][frameworks]") {
    json three =
        test::render_json(test::load_job("kind: XGBoostJob\nname: xgb\nreplicas: 3\n" + k_own));
    CHECK(three["apiVersion"] == "kubeflow.org/v1");
    const json& specs = three["spec"]["xgbReplicaSpecs"];
    CHECK(specs["Master"]["replicas"] == 1);
    CHECK(specs["Worker"]["replicas"] == 2);
    const json& master = specs["Master"]["template"]["spec"]["containers"][0];
    CHECK(master["name"] == "xgboost");
    CHECK(master["command"] == json{"python3", "train.py"});
    CHECK(master["ports"][0] ==
          json{{"name", "xgboostjob-port"}, {"containerPort", 9999}, {"protocol", "TCP"}});

    json one =
        test::render_json(test::load_job("kind: XGBoostJob\nname: xgb\nreplicas: 1\n" + k_own));
    CHECK(one["spec"]["xgbReplicaSpecs"]["Master"]["replicas"] == 1);
    CHECK_FALSE(one["spec"]["xgbReplicaSpecs"].contains("Worker"));
}

TEST_CASE("a JAXJob has replicas Workers in container jax and no Master",
          "[manifest][frameworks]") {
    json job = test::render_json(test::load_job("kind: JAXJob\nname: jx\nreplicas: 3\n" + k_own));
    const json& specs = job["spec"]["jaxReplicaSpecs"];
    CHECK(specs.size() == 1);
    CHECK(specs["Worker"]["replicas"] == 3);
    const json& worker = specs["Worker"]["template"]["spec"]["containers"][0];
    CHECK(worker["name"] == "jax");
    CHECK(worker["ports"][0]["name"] == "jaxjob-port");
    CHECK(worker["ports"][0]["containerPort"] == 6666);
}

TEST_CASE("every framework's job renders as its CRD accepts", "[manifest][frameworks]") {
    const std::vector<std::pair<std::string, std::string>> jobs = {
        {"XGBoostJob", "kind: XGBoostJob\nname: a\n" + k_own},
        {"XGBoostJob, one replica, metrics, volumes, queue",
         "kind: XGBoostJob\nname: a\nreplicas: 1\n" + k_own +
             "metrics: {port: 9400}\nrestartPolicy: Never\nqueue: team-a\n"
             "volumes:\n  - {name: data, claim: data, mountPath: /data}\n"
             "runPolicy: {backoffLimit: 2, activeDeadlineSeconds: 600}\n"},
        {"JAXJob", "kind: JAXJob\nname: a\nreplicas: 4\n" + k_own +
                       "resources: {cpu: '2', memory: 4Gi, gpus: 1}\n"},
        {"TrainJob on xgboost-distributed",
         "kind: TrainJob\nruntime: xgboost-distributed\nname: a\n" + k_own},
        {"TrainJob on jax-distributed",
         "kind: TrainJob\nruntime: jax-distributed\nname: a\n" + k_own},
        {"TrainJob on deepspeed-distributed",
         "kind: TrainJob\nruntime: deepspeed-distributed\nname: a\nnprocPerNode: '2'\n"
         "command: [mpirun, --hostfile, /etc/mpi/hostfile, python3, train.py]\n"},
        {"XGBoostJob starter", manifest::starter_job_file("a", manifest::JobKind::XGBoostJob)},
        {"JAXJob starter", manifest::starter_job_file("a", manifest::JobKind::JAXJob)},
    };
    for (const auto& [what, text] : jobs) {
        INFO(what);
        const manifest::JobSpec spec = test::load_job(text);
        const std::string crd = test::crd_file(spec.kind);
        if (!test::crd_readable(crd)) {
            continue;
        }
        CHECK(test::check_against_crd(test::render_json(test::load_job(text)), crd) ==
              std::vector<std::string>{});
    }
}

TEST_CASE("the examples of other frameworks render as their CRDs accept",
          "[manifest][frameworks]") {
    for (const char* file :
         {"xgboost/xgboostjob.yaml", "xgboost/trainjob.yaml", "jax/jaxjob.yaml",
          "jax/trainjob.yaml", "tensorflow/tfjob.yaml", "deepspeed/trainjob.yaml"}) {
        INFO(file);
        const std::string text = test::read_test_data(std::string("../../examples/") + file);
        const manifest::JobSpec spec = test::load_job(text);
        CHECK(spec.kind != manifest::JobKind::PyTorchJob);
        CHECK(test::check_against_crd(test::render_json(test::load_job(text)),
                                      test::crd_file(spec.kind)) == std::vector<std::string>{});
    }
}

TEST_CASE("a TrainJob runtime's framework is known by the names Trainer ships",
          "[manifest][frameworks]") {
    using manifest::Framework;
    const std::vector<std::pair<std::string, std::optional<Framework>>> cases = {
        {"torch-distributed", Framework::torch},
        {"torchtune-llama3.2-1b", Framework::torch},
        {"xgboost-distributed", Framework::xgboost},
        {"jax-distributed", Framework::jax},
        {"deepspeed-distributed", Framework::mpi},
        {"mlx-distributed", Framework::mpi},
        {"my-runtime", std::nullopt},
    };
    for (const auto& [runtime, framework] : cases) {
        INFO(runtime);
        CHECK(manifest::runtime_framework(runtime) == framework);
    }
}

TEST_CASE("what a framework cannot express or reserves is refused naming key and kind",
          "[manifest][frameworks]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"kind: XGBoostJob\nname: a\n",
         "job.yaml: command: an XGBoostJob runs your own XGBoost program: set command"},
        {"kind: TrainJob\nruntime: jax-distributed\nname: a\n",
         "command: a TrainJob on runtime jax-distributed runs your own JAX program"},
        {"kind: JAXJob\nname: a\nnprocPerNode: '2'\n" + k_own,
         "job.yaml:3: nprocPerNode: has no place in a JAXJob: it starts one process per replica"},
        {"kind: XGBoostJob\nname: a\nreplicas: 3\nelasticPolicy: {maxReplicas: 4}\n" + k_own,
         "elasticPolicy: has no XGBoostJob equivalent: only a PyTorchJob trains elastically"},
        {"kind: TrainJob\nruntime: xgboost-distributed\nname: a\nnprocPerNode: '2'\n" + k_own,
         "nprocPerNode: has no place in a TrainJob on runtime xgboost-distributed"},
        {"kind: TrainJob\nruntime: deepspeed-distributed\nname: a\n" + k_own,
         "command: a TrainJob on runtime deepspeed-distributed starts the job from its launcher "
         "node with mpirun"},
        {"kind: TrainJob\nruntime: mlx-distributed\nname: a\n",
         "command: a TrainJob on runtime mlx-distributed runs your own MPI program"},
    };
    for (const auto& [text, message] : cases) {
        INFO(text);
        auto rendered = try_render_text(text);
        REQUIRE_FALSE(rendered);
        CHECK_THAT(rendered.error(), Catch::Contains(message));
    }
}

TEST_CASE("env a framework's operator sets itself is refused in the job's env",
          "[manifest][frameworks]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"kind: XGBoostJob\n",
         "env.WORKER_ADDRS: is set by the Training Operator in every "
         "XGBoostJob replica"},
        {"kind: XGBoostJob\n", "env.RANK: is set by the Training Operator"},
        {"kind: JAXJob\n", "env.PROCESS_ID: is set by the Training Operator in every JAXJob"},
        {"kind: TrainJob\nruntime: xgboost-distributed\n",
         "env.DMLC_TASK_ID: is reserved by the XGBoost runtime (xgboost-distributed)"},
        {"kind: TrainJob\nruntime: jax-distributed\n",
         "env.JAX_PROCESS_ID: is set by the JAX runtime (jax-distributed): the runtime sets it "
         "on every node, replacing the job's value"},
        {"kind: TrainJob\nruntime: deepspeed-distributed\n",
         "env.OMPI_MCA_orte_default_hostfile: is reserved by the MPI runtime"},
    };
    for (const auto& [head, message] : cases) {
        const std::string name = message.substr(4, message.find(':') - 4);
        const std::string text = head + "name: a\n" + k_own + "env:\n  " + name + ": x\n";
        INFO(text);
        auto job = test::try_load_job(text);
        REQUIRE_FALSE(job);
        CHECK_THAT(job.error(), Catch::Contains(message));
    }
    // What one kind reserves, another leaves to the job.
    CHECK(test::try_load_job("kind: JAXJob\nname: a\n" + k_own + "env:\n  RANK: '1'\n"));
    CHECK(test::try_load_job("kind: XGBoostJob\nname: a\n" + k_own + "env:\n  PET_NNODES: '1'\n"));
}

TEST_CASE("a v1 job's name must leave room for its longest Service name",
          "[manifest][frameworks]") {
    const std::string name(55, 'a');
    // <name>-worker-<index> for the Workers of both; 55 + "-worker-10" = 65 > 63.
    for (const char* kind : {"XGBoostJob", "JAXJob"}) {
        INFO(kind);
        auto job = test::try_load_job(std::string("kind: ") + kind + "\nname: " + name +
                                      "\nreplicas: 12\n" + k_own);
        REQUIRE_FALSE(job);
        CHECK_THAT(job.error(), Catch::Contains("-worker-1"));
    }
}

TEST_CASE("a TFJob has a replica type per role it has, in container tensorflow",
          "[manifest][frameworks]") {
    json roles = test::render_json(
        test::load_job("kind: TFJob\nname: tf\nroles: {chief: 1, worker: 2, ps: 1}\n" + k_own));
    const json& specs = roles["spec"]["tfReplicaSpecs"];
    CHECK(specs.size() == 3);
    CHECK(specs["Chief"]["replicas"] == 1);
    CHECK(specs["Worker"]["replicas"] == 2);
    CHECK(specs["PS"]["replicas"] == 1);
    const json& chief = specs["Chief"]["template"]["spec"]["containers"][0];
    CHECK(chief["name"] == "tensorflow");
    CHECK(chief["ports"][0]["name"] == "tfjob-port");
    CHECK(chief["ports"][0]["containerPort"] == 2222);
    CHECK(test::load_job("kind: TFJob\nname: tf\nroles: {chief: 1, worker: 2, ps: 1}\n" + k_own)
              .replicas == 4);

    json workers =
        test::render_json(test::load_job("kind: TFJob\nname: tf\nreplicas: 3\n" + k_own));
    CHECK(workers["spec"]["tfReplicaSpecs"].size() == 1);
    CHECK(workers["spec"]["tfReplicaSpecs"]["Worker"]["replicas"] == 3);

    for (const std::string& text :
         {"kind: TFJob\nname: tf\nroles: {chief: 1, worker: 2, ps: 2, evaluator: 1}\n" + k_own,
          "kind: TFJob\nname: tf\nreplicas: 1\n" + k_own,
          manifest::starter_job_file("tf", manifest::JobKind::TFJob)}) {
        INFO(text);
        const std::string crd = test::crd_file(manifest::JobKind::TFJob);
        if (test::crd_readable(crd)) {
            CHECK(test::check_against_crd(test::render_json(test::load_job(text)), crd) ==
                  std::vector<std::string>{});
        }
    }
}

TEST_CASE("TF_CONFIG is the operator's, byte for byte (tensorflow/pod_test.go)",
          "[manifest][frameworks]") {
    // The operator's addresses: <job>-<type>-<index>.<namespace>.svc:<port>.
    auto service = [](const std::string& type, int index) {
        return fmt::format("test-tfjob-{}-{}.ns3.svc:2222", util::to_lower(type), index);
    };
    manifest::JobSpec spec = test::load_job(
        "kind: TFJob\nname: test-tfjob\nroles: {worker: 1, ps: 1, evaluator: 1}\n" + k_own);
    CHECK(
        manifest::tf_config(spec, "Worker", 0, service) ==
        R"({"cluster":{"evaluator":["test-tfjob-evaluator-0.ns3.svc:2222"],"ps":["test-tfjob-ps-0.ns3.svc:2222"],"worker":["test-tfjob-worker-0.ns3.svc:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"})");
    spec = test::load_job("kind: TFJob\nname: test-tfjob\nroles: {chief: 1, worker: 2}\n" + k_own);
    CHECK(
        manifest::tf_config(spec, "Worker", 1, service) ==
        R"({"cluster":{"chief":["test-tfjob-chief-0.ns3.svc:2222"],"worker":["test-tfjob-worker-0.ns3.svc:2222","test-tfjob-worker-1.ns3.svc:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"})");
    // One replica is not distributed: no TF_CONFIG (tensorflow/util.go isDistributed).
    spec = test::load_job("kind: TFJob\nname: test-tfjob\nreplicas: 1\n" + k_own);
    CHECK(manifest::tf_config(spec, "Worker", 0, service) == "");
}

TEST_CASE("a TFJob's roles are checked: a chief or worker, their total, TFJob only",
          "[manifest][frameworks]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"kind: TFJob\nname: a\nroles: {ps: 2}\n" + k_own,
         "job.yaml:3: roles: a TFJob needs a chief or at least one worker: its success is the "
         "Chief's, else Worker 0's (got chief 0, worker 0, ps 2, evaluator 0)"},
        {"kind: TFJob\nname: a\nreplicas: 5\nroles: {chief: 1, worker: 2}\n" + k_own,
         "job.yaml:3: replicas: must be the total of roles (3), or left out (got 5)"},
        {"name: a\nroles: {worker: 2}\n",
         "job.yaml:2: roles: only a TFJob has roles; a PyTorchJob counts its pods with replicas "
         "(got PyTorchJob)"},
        {"kind: TFJob\nname: a\nroles: {chief: 2}\n" + k_own, "roles.chief"},
        {"kind: TFJob\nname: a\nroles: {chief: 1}\nnprocPerNode: '2'\n" + k_own,
         "nprocPerNode: has no place in a TFJob"},
        {"kind: TFJob\nname: a\nroles: {worker: 2}\nenv: {TF_CONFIG: '{}'}\n" + k_own,
         "env.TF_CONFIG: is set by the Training Operator in every replica of a TFJob"},
        {"kind: TFJob\nname: a\n", "command: a TFJob runs your own TensorFlow program"},
    };
    for (const auto& [text, message] : cases) {
        INFO(text);
        auto rendered = try_render_text(text);
        REQUIRE_FALSE(rendered);
        CHECK_THAT(rendered.error(), Catch::Contains(message));
    }
}

TEST_CASE("a template whose Master is not exactly one is refused, as the operator's webhook does",
          "[manifest][frameworks]") {
    const manifest::JobSpec spec = test::load_job("kind: XGBoostJob\nname: a\n" + k_own);
    std::string text = manifest::default_template(manifest::JobKind::XGBoostJob).text;
    const std::string one = "    Master:\n      replicas: 1\n";
    REQUIRE(text.find(one) != std::string::npos);
    text.replace(text.find(one), one.size(), "    Master:\n      replicas: 2\n");
    auto rendered = manifest::render_job(spec, manifest::Template{text, "mine.yaml"});
    REQUIRE_FALSE(rendered);
    CHECK(rendered.error() ==
          "mine.yaml: the rendered XGBoostJob's spec.xgbReplicaSpecs.Master.replicas must be 1: "
          "the operator refuses a job without exactly one Master (got 2)");
}

TEST_CASE("names, roles, launchers and reserved env: what a hostile review of the kinds found",
          "[manifest][frameworks]") {
    // The longest Service of any type counts, not the last type's.
    const std::string name55(55, 'a');
    auto many = test::try_load_job("kind: TFJob\nname: " + name55 +
                                   "\nroles: {worker: 1000, ps: 1}\n" + k_own);
    REQUIRE_FALSE(many);
    CHECK_THAT(many.error(), Catch::Contains(name55 + "-worker-999"));
    // An MPI runtime's launcher pod is <name>-launcher-0-0.
    const std::string name52(52, 'b');
    auto launcher =
        test::try_load_job("kind: TrainJob\nruntime: deepspeed-distributed\nname: " + name52 +
                           "\ncommand: [mpirun, python3, x.py]\n");
    REQUIRE_FALSE(launcher);
    CHECK_THAT(launcher.error(), Catch::Contains(name52 + "-launcher-0-0"));
    // roles may not pass the replica cap that replicas has.
    auto huge = test::try_load_job(
        "kind: TFJob\nname: a\nroles: {chief: 1, worker: 10000, ps: 10000}\n" + k_own);
    REQUIRE_FALSE(huge);
    CHECK_THAT(huge.error(), Catch::Contains("roles: must come to at most 10000 replicas (got "
                                             "20001)"));
    // What the operator does not set in a job of one replica is the job's to set.
    CHECK(
        test::try_load_job("kind: TFJob\nname: a\nreplicas: 1\nenv: {TF_CONFIG: '{}'}\n" + k_own));
    CHECK(test::try_load_job("kind: XGBoostJob\nname: a\nreplicas: 1\nenv: {WORKER_PORT: '1'}\n" +
                             k_own));
    // MPI's launcher by any of its names; anything else is not it.
    for (const char* program :
         {"mpirun", "/usr/bin/mpirun", "mpirun.openmpi", "mpiexec", "mpiexec.hydra"}) {
        INFO(program);
        CHECK(manifest::is_mpi_launcher(program));
    }
    for (const char* program : {"sh", "mpirunner", "python3", ""}) {
        INFO(program);
        CHECK_FALSE(manifest::is_mpi_launcher(program));
    }
}

TEST_CASE("a TFJob template with more than one Chief is refused", "[manifest][frameworks]") {
    const manifest::JobSpec spec =
        test::load_job("kind: TFJob\nname: a\nroles: {chief: 1, worker: 1}\n" + k_own);
    std::string text = manifest::default_template(manifest::JobKind::TFJob).text;
    const std::string chief = "    Chief:\n      replicas: \"{{ chiefReplicas }}\"\n";
    REQUIRE(text.find(chief) != std::string::npos);
    text.replace(text.find(chief), chief.size(), "    Chief:\n      replicas: 2\n");
    auto rendered = manifest::render_job(spec, manifest::Template{text, "mine.yaml"});
    REQUIRE_FALSE(rendered);
    CHECK_THAT(rendered.error(), Catch::Contains("spec.tfReplicaSpecs.Chief.replicas must be 1"));
}
