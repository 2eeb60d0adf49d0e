#include "manifest/job_kind.h"

#include "util/text.h"

namespace kftrain::manifest {

const char* kind_name(JobKind kind) {
    return kind == JobKind::TrainJob ? "TrainJob" : "PyTorchJob";
}

const char* kind_api_version(JobKind kind) {
    return kind == JobKind::TrainJob ? "trainer.kubeflow.org/v1alpha1" : "kubeflow.org/v1";
}

const char* kind_resource(JobKind kind) {
    return kind == JobKind::TrainJob ? "trainjobs.trainer.kubeflow.org"
                                     : "pytorchjobs.kubeflow.org";
}

const char* kind_short_name(JobKind kind) {
    return kind == JobKind::TrainJob ? "trainjob" : "pytorchjob";
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
