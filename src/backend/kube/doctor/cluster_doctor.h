#pragma once

// `kftrain doctor` on a cluster: can jobs (and this job) run there?

#include "doctor/report.h"
#include "job/backend.h"
#include "job/context.h"

namespace kftrain::backend::kube {

// How long each of doctor's kubectl calls may take without --request-timeout.
inline constexpr const char* k_doctor_request_timeout = "10s";

// Check the cluster the global flags name, in the request's namespace, and the request's job:
// the client, the cluster's kinds and pieces, the permissions kftrain needs, and what the job
// needs there. Every kubectl call runs side by side under the request timeout.
doctor::Report cluster_doctor(const job::BackendOptions& global, const job::DoctorRequest& request);

}  // namespace kftrain::backend::kube
