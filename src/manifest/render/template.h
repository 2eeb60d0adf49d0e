#pragma once

#include <string>

#include "manifest/job_kind.h"

namespace kftrain::manifest {

// A job template (a PyTorchJob or a TrainJob): its YAML text and the name used in messages.
struct Template {
    std::string text;
    std::string name;
};

// Return the template built into kftrain for a kind (templates/pytorchjob.yaml,
// templates/trainjob.yaml).
Template default_template(JobKind kind);

}  // namespace kftrain::manifest
