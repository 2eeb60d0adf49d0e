#include "manifest/job_kind.h"

#include "util/text.h"

namespace kftrain::manifest {
namespace {

struct KindFacts {
    const char* name;
    const char* api_version;
    const char* resource;
    const char* short_name;
    OperatorKind v1;
};

// controller/pytorch/envvar.go, xgboost/xgboost.go, jax/envvar.go, tensorflow/tensorflow.go and
// apis/*_defaults.go.
const KindFacts& facts(JobKind kind) {
    static const KindFacts k_pytorch = {
        "PyTorchJob",
        "kubeflow.org/v1",
        "pytorchjobs.kubeflow.org",
        "pytorchjob",
        {"pytorchReplicaSpecs", "pytorch", "pytorchjob-port", 23456, "Master", "Worker"}};
    static const KindFacts k_trainjob = {"TrainJob", "trainer.kubeflow.org/v1alpha1",
                                         "trainjobs.trainer.kubeflow.org", "trainjob",
                                         k_pytorch.v1};
    static const KindFacts k_xgboost = {
        "XGBoostJob",
        "kubeflow.org/v1",
        "xgboostjobs.kubeflow.org",
        "xgboostjob",
        {"xgbReplicaSpecs", "xgboost", "xgboostjob-port", 9999, "Master", "Worker"}};
    static const KindFacts k_tf = {
        "TFJob",
        "kubeflow.org/v1",
        "tfjobs.kubeflow.org",
        "tfjob",
        {"tfReplicaSpecs", "tensorflow", "tfjob-port", 2222, "Chief", "Worker"}};
    static const KindFacts k_jax = {
        "JAXJob",
        "kubeflow.org/v1",
        "jaxjobs.kubeflow.org",
        "jaxjob",
        {"jaxReplicaSpecs", "jax", "jaxjob-port", 6666, nullptr, "Worker"}};
    switch (kind) {
        case JobKind::TrainJob:
            return k_trainjob;
        case JobKind::XGBoostJob:
            return k_xgboost;
        case JobKind::JAXJob:
            return k_jax;
        case JobKind::TFJob:
            return k_tf;
        case JobKind::PyTorchJob:
            break;
    }
    return k_pytorch;
}

}  // namespace

const char* kind_name(JobKind kind) {
    return facts(kind).name;
}

const char* kind_api_version(JobKind kind) {
    return facts(kind).api_version;
}

const char* kind_resource(JobKind kind) {
    return facts(kind).resource;
}

const char* kind_short_name(JobKind kind) {
    return facts(kind).short_name;
}

bool is_operator_kind(JobKind kind) {
    return kind != JobKind::TrainJob;
}

const OperatorKind& operator_kind(JobKind kind) {
    return facts(kind).v1;
}

std::optional<JobKind> parse_kind(const std::string& text) {
    const std::string lower = util::to_lower(text);
    for (JobKind kind : k_kinds) {
        if (lower == util::to_lower(kind_name(kind))) {
            return kind;
        }
    }
    return std::nullopt;
}

}  // namespace kftrain::manifest
