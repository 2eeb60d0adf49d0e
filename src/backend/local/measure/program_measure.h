#pragma once

#include <ostream>

#include "cost/measurement.h"
#include "estimate/program/profile.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Run the job's own command on this machine through the local backend, once per size, each
// until it ends or for request.seconds, reading its progress both ways (progress lines of
// its lead replica, trainerStatus posts), and return the program's profile, saved beside the
// local jobs' state (cost::saved_profile_path) and at request.profile_out. Each run is a local
// job named <job>-measure-<replicas>, deleted when its size is done; its writable volumes are empty
// directories of its own, so a real run's checkpoints are neither read nor written. Errors carry
// their exit code: 2 when the program reports no progress (naming both ways), 1 when it fails, 130
// at Ctrl-C, SIGTERM or SIGHUP (its processes stopped first).
util::Result<estimate::ProgramProfile> measure_program(const cost::MeasureRequest& request,
                                                       std::ostream& err);

}  // namespace kftrain::backend::local
