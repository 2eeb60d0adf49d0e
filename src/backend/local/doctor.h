#pragma once

// `kftrain doctor --local`: can jobs (and this job) run on this machine?

#include <string>

#include "doctor/report.h"
#include "job/backend.h"

namespace kftrain::backend::local {

// Check this machine for local jobs: its cores and memory, kftrain-trainer beside kftrain
// (kftrain at the path given), the job's program, python3 and its torch where the job's
// command needs them, free ports, the state directory, the local queues; and whether the job's
// replicas fit on the machine.
doctor::Report local_doctor(const job::DoctorRequest& request, const std::string& kftrain);

}  // namespace kftrain::backend::local
