#include "manifest/load.h"

#include <catch2/catch.hpp>

#include "support/jobs.h"

using kftrain::manifest::load_job_text;
using kftrain::manifest::Overrides;
using kftrain::test::load_error;
using kftrain::test::load_job;

TEST_CASE("a minimal job file gets every documented default", "[manifest]") {
    auto job = load_job_text("name: mnist\n", "job.yaml", {});
    REQUIRE(job);
    CHECK(job->namespace_ == "default");
    CHECK(job->replicas == 2);
    CHECK(job->image == "kftrain/trainer:latest");
    CHECK(job->restart_policy == "OnFailure");
    CHECK(job->image_pull_policy == "IfNotPresent");
    CHECK(job->command.empty());
    CHECK_FALSE(job->args.has_value());
    CHECK(job->trainer.empty());
}

TEST_CASE("bad job files are rejected with the file, line, field and value", "[manifest]") {
    struct Case {
        const char* what;
        std::string text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"unknown key with a suggestion", "name: a\nreplica: 3\n",
         "job.yaml:2: replica: unknown key (did you mean replicas?)"},
        {"unknown nested key", "name: a\ntrainer:\n  epoch: 3\n",
         "job.yaml:3: trainer.epoch: unknown key (did you mean trainer.epochs?)"},
        {"unknown key with nothing near", "name: a\nzzzzzz: 1\n",
         "job.yaml:2: zzzzzz: unknown key"},
        {"wrong type", "name: a\nreplicas: two\n",
         "job.yaml:2: replicas: expected an integer (got two)"},
        {"a float where an integer goes", "name: a\nreplicas: 2.5\n",
         "job.yaml:2: replicas: expected an integer (got 2.5)"},
        {"out of range", "name: a\nreplicas: 0\n", "job.yaml:2: replicas: must be >= 1 (got 0)"},
        {"negative learning rate", "name: a\ntrainer:\n  lr: -1\n",
         "job.yaml:3: trainer.lr: must be >= 0 (got -1)"},
        {"bad quantity", "name: a\nresources:\n  memory: 8GG\n",
         "job.yaml:3: resources.memory: expected a quantity such as 4, 500m or 8Gi (got 8GG)"},
        {"a quantity past 2^63", "name: a\nresources:\n  cpu: \"1" + std::string(400, '0') + "\"\n",
         "job.yaml:3: resources.cpu: is out of range: a quantity is below 2^63 base units (8Ei "
         "bytes) and no finer than 1n (got 1" +
             std::string(63, '0') + "...)"},
        {"a quantity finer than a double",
         "name: a\nresources:\n  memory: 0." + std::string(400, '0') + "1\n",
         "job.yaml:3: resources.memory: is out of range: a quantity is below 2^63 base units "
         "(8Ei bytes) and no finer than 1n (got 0." +
             std::string(62, '0') + "...)"},
        {"a quantity's exponent past a double", "name: a\nresources:\n  cpu: 1e99999\n",
         "job.yaml:3: resources.cpu: is out of range: a quantity is below 2^63 base units (8Ei "
         "bytes) and no finer than 1n (got 1e99999)"},
        {"not one of the allowed values", "name: a\nrestartPolicy: OnFail\n",
         "job.yaml:2: restartPolicy: must be one of Never, OnFailure, Always, ExitCode (did you "
         "mean OnFailure?) (got OnFail)"},
        {"a map where a list goes", "name: a\ncommand: {a: b}\n",
         "job.yaml:2: command: expected a list of strings (got a map)"},
        {"boolean", "name: a\nrunPolicy:\n  suspend: maybe\n",
         "job.yaml:3: runPolicy.suspend: expected true or false (got maybe)"},
        {"missing name", "replicas: 2\n", "job.yaml: name: is required (got nothing)"},
        {"name with capitals", "name: MNIST\n",
         "job.yaml:1: name: must be a DNS-1035 label: at most 63 lower-case letters, digits and "
         "'-', starting with a letter and ending with a letter or digit (got MNIST)"},
        {"name starting with a digit", "name: 1job\n",
         "job.yaml:1: name: must be a DNS-1035 label: at most 63 lower-case letters, digits and "
         "'-', starting with a letter and ending with a letter or digit (got 1job)"},
        {"name too long for the worker services",
         "name: " + std::string(55, 'a') + "\nreplicas: 12\n",
         "job.yaml:1: name: too long for 12 replicas: the operator's service " +
             std::string(55, 'a') + "-worker-10 would exceed 63 characters (got " +
             std::string(55, 'a') + ")"},
        {"nprocPerNode", "name: a\nnprocPerNode: many\n",
         "job.yaml:2: nprocPerNode: must be auto, cpu, gpu or a positive integer (got many)"},
        {"nprocPerNode zero", "name: a\nnprocPerNode: 0\n",
         "job.yaml:2: nprocPerNode: must be auto, cpu, gpu or a positive integer (got 0)"},
        {"nprocPerNode past an int", "name: a\nnprocPerNode: 99999999999\n",
         "job.yaml:2: nprocPerNode: must be at most 1024 processes per node (got 99999999999)"},
        {"elastic without workers", "name: a\nreplicas: 1\nelasticPolicy:\n  maxReplicas: 4\n",
         "job.yaml:3: elasticPolicy: needs Workers: set replicas to 2 or more (got replicas 1)"},
        {"cuda without GPUs", "name: a\ntrainer:\n  device: cuda\n",
         "job.yaml:3: trainer.device: cuda needs GPUs: set resources.gpus (got cuda, "
         "resources.gpus is 0)"},
        {"nccl without GPUs", "name: a\ntrainer:\n  backend: nccl\n",
         "job.yaml:3: trainer.backend: nccl needs GPUs: set resources.gpus, or use gloo (got "
         "nccl, resources.gpus is 0)"},
        {"bucket size that is no number", "name: a\ntrainer:\n  bucketMb: big\n",
         "job.yaml:3: trainer.bucketMb: must be auto or a number of MiB from 0.001 to 1024 "
         "(got big)"},
        {"bucket size of zero", "name: a\ntrainer:\n  bucketMb: 0\n",
         "job.yaml:3: trainer.bucketMb: must be auto or a number of MiB from 0.001 to 1024 "
         "(got 0)"},
        {"bucket size under a KiB", "name: a\ntrainer:\n  bucketMb: 1e-9\n",
         "job.yaml:3: trainer.bucketMb: must be auto or a number of MiB from 0.001 to 1024 "
         "(got 1e-9)"},
        {"bucket size too large", "name: a\ntrainer:\n  bucketMb: 2048\n",
         "job.yaml:3: trainer.bucketMb: must be auto or a number of MiB from 0.001 to 1024 "
         "(got 2048)"},
        {"a process per GPU without GPUs", "name: a\nnprocPerNode: gpu\n",
         "job.yaml:2: nprocPerNode: gpu starts one process per GPU: set resources.gpus (got gpu, "
         "resources.gpus is 0)"},
        {"empty image", "name: a\nimage: \"\"\n",
         "job.yaml:2: image: every container needs an image (got nothing)"},
        {"volume with claim and configMap",
         "name: a\nvolumes:\n  - name: d\n    claim: c\n    configMap: m\n    mountPath: /d\n",
         "job.yaml:3: volumes[0]: needs exactly one of claim or configMap (got both)"},
        {"relative mount path", "name: a\nvolumes:\n  - name: d\n    claim: c\n    mountPath: d\n",
         "job.yaml:5: volumes[0].mountPath: must be an absolute path (got d)"},
        {"mount path /", "name: a\nvolumes:\n  - name: d\n    claim: c\n    mountPath: //\n",
         "job.yaml:5: volumes[0].mountPath: must not be / (it would hide the image's whole file "
         "system) (got //)"},
        {"mount path /proc", "name: a\nvolumes:\n  - name: d\n    claim: c\n    mountPath: /proc\n",
         "job.yaml:5: volumes[0].mountPath: must not be at or under /proc (the container's "
         "runtime mounts it) (got /proc)"},
        {"mount path under /sys",
         "name: a\nvolumes:\n  - name: d\n    claim: c\n    mountPath: /sys/fs/x/\n",
         "job.yaml:5: volumes[0].mountPath: must not be at or under /sys (the container's "
         "runtime mounts it) (got /sys/fs/x/)"},
        {"mount path /dev", "name: a\nvolumes:\n  - name: d\n    claim: c\n    mountPath: /dev/.\n",
         "job.yaml:5: volumes[0].mountPath: must not be at or under /dev (the container's "
         "runtime mounts it) (got /dev/.)"},
        {"two mount paths the same but for a slash",
         "name: a\nvolumes:\n  - {name: d, claim: c, mountPath: /data}\n"
         "  - {name: e, claim: f, mountPath: /data/}\n",
         "job.yaml:4: volumes[1].mountPath: is used by another volume (got /data/)"},
        {"env secret without key", "name: a\nenv:\n  TOKEN:\n    secretKeyRef: {name: s}\n",
         "job.yaml:3: env.TOKEN: expected a string or {secretKeyRef: {name: ..., key: ...}} (got "
         "a map)"},
        {"a CPU request over its limit",
         "name: a\nresources:\n  cpu: \"4\"\n  limits:\n    cpu: 2000m\n",
         "job.yaml:3: resources.cpu: must be at most resources.limits.cpu (2000m): Kubernetes "
         "refuses every pod whose request exceeds its limit (got 4)"},
        {"a memory request over its limit",
         "name: a\nresources:\n  memory: 8Gi\n  limits:\n    memory: 8G\n",
         "job.yaml:3: resources.memory: must be at most resources.limits.memory (8G): Kubernetes "
         "refuses every pod whose request exceeds its limit (got 8Gi)"},
        {"a variable the operator sets", "name: a\nenv:\n  WORLD_SIZE: \"9\"\n",
         "job.yaml:3: env.WORLD_SIZE: is set by the Training Operator in every replica, after "
         "the job's env, so this value would never reach the program: remove it (got 9)"},
        {"an elastic variable the operator sets", "name: a\nenv:\n  PET_RDZV_BACKEND: etcd\n",
         "job.yaml:3: env.PET_RDZV_BACKEND: is set by the Training Operator in every replica, "
         "after the job's env, so this value would never reach the program: remove it (got "
         "etcd)"},
        {"a variable Trainer v2 sets", "name: a\nkind: TrainJob\nenv:\n  PET_NODE_RANK: \"0\"\n",
         "job.yaml:4: env.PET_NODE_RANK: is reserved in a TrainJob: Trainer sets PET_NNODES, "
         "PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT on every node "
         "itself and refuses a job that sets one: remove it (got 0)"},
        {"trainer with a custom command", "name: a\ncommand: [python]\ntrainer:\n  epochs: 2\n",
         "job.yaml:3: trainer: applies only to the default command (kftrain-trainer); remove "
         "trainer or command (got command python)"},
        {"not a map", "- a\n- b\n", "job.yaml:1: expected a map of job settings (got a list)"},
        {"a file that is no job file: nothing of it is quoted",
         "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n",
         "job.yaml:1: expected a map of job settings (got text, not key: value lines)"},
        {"a long value is quoted in part", "name: a\nreplicas: " + std::string(300, 'x') + "\n",
         "job.yaml:2: replicas: expected an integer (got " + std::string(64, 'x') + "...)"},
        {"empty file", "", "job.yaml: the job file is empty (kftrain init writes a starter)"},
        {"invalid YAML", "name: a\nreplicas: [1\n",
         "job.yaml:3: invalid YAML: end of sequence flow not found"},
        {"label value too long", "name: a\nlabels:\n  team: " + std::string(64, 'x') + "\n",
         "job.yaml:3: labels.team: must be a label value: at most 63 letters, digits, '-', '_' or "
         "'.', starting and ending with a letter or digit (got " +
             std::string(64, 'x') + ")"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        CHECK(load_error(c.text) == c.message);
    }
}

TEST_CASE("requests up to their limits, and env the operator leaves alone, are kept",
          "[manifest]") {
    auto spec = load_job(
        "name: a\nresources:\n  cpu: 500m\n  memory: 4Gi\n  limits:\n    cpu: \"1\"\n"
        "    memory: 4Gi\nenv:\n  PYTHONUNBUFFERED: \"1\"\n  LOCAL_WORLD: x\n");
    CHECK(spec.resources.cpu_limit == "1");
    CHECK(spec.env.count("PYTHONUNBUFFERED") == 1);
}

TEST_CASE("set overrides keys, typed as the field", "[manifest]") {
    Overrides overrides;
    overrides.sets = {"replicas=8", "trainer.epochs=5",        "labels.app.kubernetes.io/part-of=x",
                      "env.SEED=7", "imagePullSecrets=[a, b]", "trainer.scaleLr=true"};
    auto job =
        load_job_text("name: a\nreplicas: 2\ntrainer:\n  epochs: 1\n", "job.yaml", overrides);
    REQUIRE(job);
    CHECK(job->replicas == 8);
    CHECK(job->trainer_value("epochs", "") == "5");
    CHECK(job->trainer_value("scaleLr", "") == "true");
    CHECK(job->labels.at("app.kubernetes.io/part-of") == "x");
    CHECK(job->env.at("SEED").value == "7");
    CHECK(job->image_pull_secrets == std::vector<std::string>{"a", "b"});
}

TEST_CASE("the namespace flag overrides the job file's namespace", "[manifest]") {
    Overrides overrides;
    overrides.namespace_ = "ml-training";
    auto job = load_job_text("name: a\nnamespace: other\n", "job.yaml", overrides);
    REQUIRE(job);
    CHECK(job->namespace_ == "ml-training");
    overrides.namespace_ = "Bad_NS";
    CHECK(load_error("name: a\n", overrides) ==
          "--namespace: must be a DNS-1123 label (got Bad_NS)");
}

TEST_CASE("bad --set values name the flag and the value", "[manifest]") {
    struct Case {
        std::string set;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"replicas=abc", "--set replicas: expected an integer (got abc)"},
        {"replicas=0", "--set replicas: must be >= 1 (got 0)"},
        {"trainer.epoch=3", "--set trainer.epoch: unknown key (did you mean trainer.epochs?)"},
        {"trainer", "--set: expected key=value (got trainer)"},
        {"=3", "--set: expected key=value (got =3)"},
        {"resources.memory=8GG",
         "--set resources.memory: expected a quantity such as 4, 500m or 8Gi (got 8GG)"},
        {"replicas.count=2", "--set replicas.count: replicas is an integer, not a map with keys"},
        {"trainer.model=vgg",
         "--set trainer.model: must be one of mnist-cnn, mlp, resnet18 (got vgg)"},
        {"name=Bad",
         "--set name: must be a DNS-1035 label: at most 63 lower-case letters, digits "
         "and '-', starting with a letter and ending with a letter or digit (got Bad)"},
    };
    for (const auto& c : cases) {
        INFO(c.set);
        Overrides overrides;
        overrides.sets = {c.set};
        CHECK(load_error("name: a\n", overrides) == c.message);
    }
}

TEST_CASE("integers are read as decimal, as they were checked, and must fit", "[manifest]") {
    // Found by fuzzing (fuzz/regressions/fuzz_job_file/): yaml-cpp reads a leading 0 as octal,
    // so "0797" threw out of kftrain and "010" became 8 after the check had passed 10.
    auto job = load_job_text("name: a\nreplicas: 010\nrunPolicy:\n  activeDeadlineSeconds: 0797\n",
                             "job.yaml", {});
    REQUIRE(job);
    CHECK(job->replicas == 10);
    CHECK(job->run_policy.active_deadline_seconds == 797);
    CHECK(load_error("name: a\nrunPolicy:\n  backoffLimit: 99999999999\n") ==
          "job.yaml:3: runPolicy.backoffLimit: must be <= 2147483647 (got 99999999999)");
}

TEST_CASE("more --set flags than a command takes are refused before any is applied", "[manifest]") {
    Overrides overrides;
    for (int i = 0; i < 10000; ++i) {
        overrides.sets.push_back("env.V" + std::to_string(i) + "=x");
    }
    CHECK(load_error("name: a\n", overrides) ==
          "--set: given 10000 times; at most 1000 (put the settings in the job file instead)");
    overrides.sets.resize(1000);
    CHECK(load_error("name: a\n", overrides) == "(loaded)");
}
