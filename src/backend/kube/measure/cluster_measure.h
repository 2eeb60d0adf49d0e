#pragma once

#include <ostream>
#include <string>

#include "cost/measurement.h"
#include "estimate/program/profile.h"
#include "job/context.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// `kftrain estimate --measure --on-cluster`: submit the job at each size as a short job
// <job>-measure-<R> in its namespace and queue (one after another, or side by side with
// request.parallel), wait for its pods to start (the wait is reported, not counted), read its
// lead replica's progress lines (the kubelet's timestamps) and a TrainJob's trainerStatus,
// stop and delete it, and fit what it did as the local measurement does. Writable volumes get
// an emptyDir; code ships in a ConfigMap as submit ships it. Every job it started is deleted
// however it ends (done, failed, a start past request.start_timeout_s, Ctrl-C, SIGTERM), and
// their pods are waited for until gone. The profile records the context, namespace, nodes,
// their hardware and the image, and is saved as saved_profile_path(job, true). Errors carry
// their exit code: 2 (a job of a measurement's name exists, no progress), 1 (it failed or its
// pods never started), 4 (kubectl), 130 (a signal).
util::Result<estimate::ProgramProfile> measure_on_cluster(const job::BackendOptions& global,
                                                          const cost::MeasureRequest& request,
                                                          std::ostream& err);

}  // namespace kftrain::backend::kube
