#pragma once

#include <string>

#include "backend/kube/queries.h"
#include "job/backend.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// Apply a rendered PyTorchJob or TrainJob (the spec's kind says which); return the line to
// print ("trainjob/x submitted"). When the cluster does not serve that kind but serves the
// other, the error's hint says to use --kind with the other (exit code 4). The namespace's
// ResourceQuotas are checked first (quota_gate.h): their warnings go to report.notes.
util::Result<std::string> submit_job(KubeQueries& queries, const job::RenderedJob& job,
                                     const job::SubmitFlags& flags, job::Reporter& report);

// Return the hint for a cluster that does not serve this kind but serves the other:
// "this cluster serves TrainJob (Kubeflow Trainer v2): use --kind TrainJob".
std::string other_kind_hint(manifest::JobKind unserved);

}  // namespace kftrain::backend::kube
