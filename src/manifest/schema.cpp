#include "manifest/schema.h"

#include <cctype>

namespace kftrain::manifest {
namespace {

using T = FieldType;

FieldDef field(std::string name, FieldType type, std::string def, std::string doc) {
    FieldDef f;
    f.name = std::move(name);
    f.type = type;
    f.default_text = std::move(def);
    f.doc = std::move(doc);
    return f;
}

FieldDef one_of(std::string name, std::vector<std::string> allowed, std::string def,
                std::string doc) {
    FieldDef f = field(std::move(name), T::String, std::move(def), std::move(doc));
    f.allowed = std::move(allowed);
    return f;
}

FieldDef ranged(std::string name, FieldType type, double min, std::optional<double> max,
                std::string def, std::string doc) {
    FieldDef f = field(std::move(name), type, std::move(def), std::move(doc));
    f.min = min;
    f.max = max;
    return f;
}

FieldDef object(std::string name, std::string doc, std::vector<FieldDef> children) {
    FieldDef f = field(std::move(name), T::Object, "", std::move(doc));
    f.children = std::move(children);
    return f;
}

constexpr double k_int32_max = 2147483647.0;

FieldDef trainer_section() {
    return object(
        "trainer", "flags of kftrain-trainer, used when command is not set",
        {
            one_of("dataset", {"mnist", "cifar10", "synthetic"}, "synthetic",
                   "data set to train on"),
            field("dataDir", T::String, "/data", "directory holding the data set files"),
            one_of("model", {"mnist-cnn", "mlp", "resnet18"}, "mnist-cnn", "network to train"),
            ranged("epochs", T::Int, 1, 100000, "1", "passes over the data set"),
            ranged("batchSize", T::Int, 1, 1048576, "64", "samples per step on each replica"),
            ranged("lr", T::Float, 0, 10, "0.01", "learning rate"),
            one_of("optimizer", {"sgd", "adam"}, "sgd", "optimizer"),
            ranged("momentum", T::Float, 0, 1, "0.9", "SGD momentum"),
            ranged("weightDecay", T::Float, 0, 1, "0", "L2 weight decay"),
            field("scaleLr", T::Bool, "false", "multiply lr by the world size (linear scaling)"),
            ranged("warmupEpochs", T::Int, 0, 1000, "0", "epochs of linear learning-rate warmup"),
            ranged("lrStep", T::Int, 0, 1000, "0", "epochs between learning-rate decays (0: none)"),
            ranged("lrGamma", T::Float, 0, 1, "0.1", "learning-rate decay factor"),
            ranged("seed", T::Int, 0, k_int32_max, "42", "random seed, the same on every replica"),
            field("checkpointDir", T::String, "", "where rank 0 writes checkpoints (a volume)"),
            ranged("checkpointEvery", T::Int, 0, k_int32_max, "0",
                   "steps between checkpoints (0: at epoch ends only)"),
            ranged("keepCheckpoints", T::Int, 1, 1000, "3", "checkpoints kept"),
            ranged("logEvery", T::Int, 1, k_int32_max, "50", "steps between progress lines"),
            one_of("backend", {"auto", "gloo", "nccl"}, "auto", "collective backend"),
            one_of("gradCompression", {"none", "fp16", "bf16"}, "none",
                   "all-reduce gradients in half precision, as DDP's compression hooks do"),
            field("bucketMb", T::String, "auto",
                  "gradient bucket capacity in MiB (auto: sized from the links at start)"),
            one_of("device", {"auto", "cpu", "cuda"}, "auto",
                   "where the model and data live (auto: the replica's GPU when it sees one)"),
            one_of("memoryFormat", {"auto", "channels-last", "contiguous"}, "auto",
                   "layout of convolution weights and images (auto: channels-last for "
                   "mnist-cnn and resnet18 on the CPU)"),
            ranged("timeout", T::Int, 1, 86400, "300", "seconds to wait for a peer before failing"),
            ranged("threads", T::Int, 0, 1024, "0",
                   "intra-op threads per process (0: CPU quota / local processes)"),
            ranged("samples", T::Int, 0, k_int32_max, "0",
                   "samples to use (0: the whole data set; the size of synthetic)"),
            ranged("metricsPort", T::Int, 0, 65535, "0",
                   "serve Prometheus metrics at this port on every replica, at /metrics "
                   "(0: off); rendered jobs get the port and the scrape annotations"),
            field("metricLines", T::Bool, "false",
                  "print name=value lines at each evaluation (Katib's StdOut collector; "
                  "`kftrain tune` sets it)"),
        });
}

FieldDef resources_section() {
    auto limits = object("limits", "limits, when they differ from the requests",
                         {
                             field("cpu", T::Quantity, "", "CPU limit"),
                             field("memory", T::Quantity, "", "memory limit"),
                         });
    return object("resources", "per replica: requests (and limits unless given)",
                  {
                      field("cpu", T::Quantity, "", "CPU cores, e.g. 4 or 500m"),
                      field("memory", T::Quantity, "", "memory, e.g. 8Gi"),
                      ranged("gpus", T::Int, 0, 64, "0", "nvidia.com/gpu per replica"),
                      limits,
                  });
}

FieldDef volumes_section() {
    FieldDef v = field("volumes", T::ObjectList, "[]", "volumes mounted in every replica");
    v.children = {
        field("name", T::String, "", "volume name (a DNS-1123 label)"),
        field("claim", T::String, "", "PersistentVolumeClaim to mount"),
        field("configMap", T::String, "", "ConfigMap to mount"),
        field("mountPath", T::String, "", "absolute path in the container"),
        field("readOnly", T::Bool, "false", "mount read-only"),
        field("localPath", T::String, "", "directory used instead by the local backend"),
    };
    return v;
}

FieldDef code_section() {
    return object(
        "code", "a folder shipped with the job, the replicas' working directory (docs/code.md)",
        {
            field("path", T::String, "",
                  "folder, relative to the job file's, whose files every replica finds at "
                  "mountPath (--code)"),
            field("mountPath", T::String, "/workspace",
                  "where they appear: an absolute path, the replicas' working directory"),
            field("exclude", T::StringList, "[]",
                  "globs left out (\"!glob\" brings one back), after the defaults (.git/, "
                  "caches, virtualenvs, secrets such as .env), .gitignore and .kftrainignore"),
        });
}

FieldDef tolerations_section() {
    FieldDef t = field("tolerations", T::ObjectList, "[]", "taints the pods tolerate");
    t.children = {
        field("key", T::String, "", "taint key"),
        one_of("operator", {"Equal", "Exists"}, "Equal", "how key and value match"),
        field("value", T::String, "", "taint value"),
        one_of("effect", {"NoSchedule", "PreferNoSchedule", "NoExecute"}, "", "taint effect"),
        ranged("tolerationSeconds", T::Int, 0, 9.2e18, "", "for NoExecute: seconds to stay"),
    };
    return t;
}

FieldDef run_policy_section() {
    return object(
        "runPolicy", "the operator's run policy",
        {
            ranged("backoffLimit", T::Int, 0, k_int32_max, "",
                   "the job fails when its restarts reach this: N lets N-1 retries run "
                   "(--retries N writes N+1; docs/restarts.md)"),
            ranged("activeDeadlineSeconds", T::Int, 1, 9.2e18, "", "seconds the job may run"),
            ranged("ttlSecondsAfterFinished", T::Int, 0, k_int32_max, "",
                   "seconds before a finished job is deleted"),
            one_of("cleanPodPolicy", {"None", "All", "Running"}, "None", "pods deleted at the end"),
            field("suspend", T::Bool, "false", "create the job suspended"),
            object(
                "schedulingPolicy", "gang scheduling (Volcano or scheduler-plugins)",
                {
                    ranged("minAvailable", T::Int, 1, k_int32_max, "", "pods scheduled together"),
                    field("queue", T::String, "", "scheduler queue"),
                    field("priorityClass", T::String, "", "priority class of the pod group"),
                }),
        });
}

FieldDef elastic_section() {
    return object(
        "elasticPolicy", "torchrun elastic training (needs Workers)",
        {
            ranged("minReplicas", T::Int, 1, k_int32_max, "", "fewest replicas to run with"),
            ranged("maxReplicas", T::Int, 1, k_int32_max, "", "most replicas to scale to"),
            ranged("maxRestarts", T::Int, 0, k_int32_max, "", "torchrun restarts"),
            one_of("rdzvBackend", {"c10d", "etcd", "etcd-v2"}, "c10d", "rendezvous backend"),
        });
}

FieldDef mlflow_section() {
    return object("mlflow", "MLflow tracking from rank 0",
                  {
                      field("trackingUri", T::String, "", "MLFLOW_TRACKING_URI"),
                      field("experiment", T::String, "", "MLFLOW_EXPERIMENT_NAME"),
                      field("runName", T::String, "", "MLFLOW_RUN_NAME (default: the job name)"),
                      field("credentialsSecret", T::String, "",
                            "Secret with MLFLOW_TRACKING_TOKEN or _USERNAME/_PASSWORD keys"),
                  });
}

FieldDef tune_section() {
    return object(
        "tune", "what `kftrain tune` searches (a Katib Experiment); its flags override these",
        {
            field("name", T::String, "", "the search's name (default: the job's)"),
            field("params", T::StringMap, "{}",
                  "trainer key, or NAME of a ${trialParameters.NAME} in command, args or env: "
                  "MIN:MAX[:log][:step=S] or a list A,B,C, e.g. lr: 0.001:0.1:log"),
            field("objective", T::String, "accuracy:maximize",
                  "accuracy or loss of the held-out evaluation (your own program: any metric "
                  "it prints), then :maximize or :minimize"),
            field("goal", T::Float, "", "stop when a trial reaches this objective value"),
            ranged("maxTrials", T::Int, 1, k_int32_max, "12",
                   "trials to run at most (grid: at most its points, unless given)"),
            ranged("parallel", T::Int, 1, k_int32_max, "3", "trials running at once"),
            ranged("maxFailedTrials", T::Int, 0, k_int32_max, "3",
                   "failed trials that stop the search"),
            one_of("algorithm", {"random", "grid", "bayesianoptimization", "tpe"}, "random",
                   "search algorithm"),
        });
}

FieldDef roles_section() {
    return object("roles",
                  "TFJob: replicas by role (without it, replicas Workers); replicas is their total",
                  {
                      ranged("chief", T::Int, 0, 1, "0", "the Chief, which decides success"),
                      ranged("worker", T::Int, 0, 10000, "0", "Workers"),
                      ranged("ps", T::Int, 0, 10000, "0", "parameter servers"),
                      ranged("evaluator", T::Int, 0, 1, "0", "the Evaluator"),
                  });
}

FieldDef build_schema() {
    return object(
        "", "job file",
        {
            one_of("kind", {"PyTorchJob", "TrainJob", "TFJob", "XGBoostJob", "JAXJob"},
                   "PyTorchJob",
                   "what to render: a Training Operator v1 PyTorchJob, TFJob, XGBoostJob or "
                   "JAXJob, or a Kubeflow Trainer v2 TrainJob"),
            field("runtime", T::String, "torch-distributed",
                  "TrainJob: the ClusterTrainingRuntime to run on (torch-distributed, "
                  "xgboost-distributed, jax-distributed, deepspeed-distributed, ...), or "
                  "TrainingRuntime/NAME for one of the namespace's own"),
            field("name", T::String, "", "job name (a DNS-1035 label); required"),
            field("namespace", T::String, "default", "Kubernetes namespace"),
            one_of("backend", {"kubernetes", "local"}, "",
                   "where to run (default: kubernetes with a kubeconfig, else local)"),
            field("image", T::String, "kftrain/trainer:latest",
                  "container image of every replica (a program of your own: its kind's official "
                  "image, docs/code.md)"),
            one_of("imagePullPolicy", {"Always", "IfNotPresent", "Never"}, "IfNotPresent",
                   "image pull policy"),
            field("imagePullSecrets", T::StringList, "[]", "Secrets for a private registry"),
            field("command", T::StringList, "[kftrain-trainer]", "container command"),
            field("args", T::StringList, "",
                  "container arguments (default: the flags from trainer)"),
            ranged("replicas", T::Int, 1, 10000, "2",
                   "total pods: 1 Master + replicas-1 Workers (JAXJob, TFJob without roles: "
                   "Workers; TrainJob: nodes)"),
            roles_section(),
            field("nprocPerNode", T::String, "", "processes per pod: auto, cpu, gpu or a number"),
            one_of("restartPolicy", {"Never", "OnFailure", "Always", "ExitCode"}, "OnFailure",
                   "what the operator does when a replica fails"),
            resources_section(),
            field("env", T::Env, "{}", "environment: NAME: value or NAME: {secretKeyRef: ...}"),
            trainer_section(),
            mlflow_section(),
            object("metrics",
                   "your own program's Prometheus endpoint (kftrain-trainer: trainer.metricsPort)",
                   {
                       ranged("port", T::Int, 0, 65535, "0",
                              "port it serves at, told in KFTRAIN_METRICS_PORT (0: none)"),
                       field("path", T::String, "/metrics", "HTTP path of the metrics"),
                   }),
            volumes_section(),
            code_section(),
            run_policy_section(),
            elastic_section(),
            field("nodeSelector", T::StringMap, "{}", "node labels the pods need"),
            tolerations_section(),
            field("priorityClassName", T::String, "", "pod priority class"),
            field("queue", T::String, "",
                  "Kueue LocalQueue to wait in: the job is created suspended and Kueue admits it "
                  "(--queue)"),
            field("priorityClass", T::String, "",
                  "Kueue WorkloadPriorityClass of the queued job (--priority-class; needs queue)"),
            field("labels", T::StringMap, "{}", "labels on the job and its pods"),
            field("annotations", T::StringMap, "{}", "annotations on the job and its pods"),
            tune_section(),
        });
}

}  // namespace

const FieldDef& job_schema() {
    static const FieldDef schema = build_schema();
    return schema;
}

const FieldDef* find_field(const std::string& dotted_path) {
    const FieldDef* current = &job_schema();
    size_t start = 0;
    while (start <= dotted_path.size()) {
        size_t dot = dotted_path.find('.', start);
        std::string part = dotted_path.substr(start, dot == std::string::npos ? dot : dot - start);
        const FieldDef* next = nullptr;
        for (const auto& child : current->children) {
            if (child.name == part) {
                next = &child;
            }
        }
        if (next == nullptr) {
            return nullptr;
        }
        current = next;
        if (dot == std::string::npos) {
            return current;
        }
        start = dot + 1;
    }
    return nullptr;
}

std::string describe_type(FieldType type) {
    switch (type) {
        case T::String:
            return "a string";
        case T::Int:
            return "an integer";
        case T::Float:
            return "a number";
        case T::Bool:
            return "true or false";
        case T::Quantity:
            return "a quantity such as 4, 500m or 8Gi";
        case T::StringList:
            return "a list of strings";
        case T::StringMap:
            return "a map of strings";
        case T::Env:
            return "a map of NAME: value or NAME: {secretKeyRef: {name, key}}";
        case T::Object:
            return "a map";
        case T::ObjectList:
            return "a list of maps";
    }
    return "a value";
}

std::string trainer_flag(const std::string& key) {
    std::string flag = "--";
    for (char c : key) {
        if (std::isupper(static_cast<unsigned char>(c)) != 0) {
            flag += '-';
            flag += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else {
            flag += c;
        }
    }
    return flag;
}

}  // namespace kftrain::manifest
