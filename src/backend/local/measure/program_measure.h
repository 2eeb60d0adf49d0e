#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "estimate/program/profile.h"
#include "job/status.h"
#include "manifest/code.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::backend::local {

// What `kftrain estimate --measure` runs.
struct MeasureRequest {
    manifest::JobSpec spec;     // the job, as loaded
    std::vector<int> replicas;  // --measure-replicas: the sizes to run it at
    double seconds = 60;        // --measure-seconds: at most this long at each size
    std::string profile_out;    // --profile-out: also write the profile here
    // The folder the job ships (code), read once: every size runs in a copy of it.
    std::optional<manifest::CodeBundle> code;
};

// Run the job's own command on this machine through the local backend, once per size, each
// until it ends or for request.seconds, reading its progress both ways (progress lines of
// its lead replica, trainerStatus posts), and return the program's profile, saved beside the
// local jobs' state (job::cost::saved_profile_path) and at request.profile_out. Each run is a local
// job named <job>-measure-<replicas>, deleted when its size is done; its writable volumes are empty
// directories of its own, so a real run's checkpoints are neither read nor written. Errors carry
// their exit code: 2 when the program reports no progress (naming both ways), 1 when it fails, 130
// at Ctrl-C, SIGTERM or SIGHUP (its processes stopped first).
util::Result<estimate::ProgramProfile> measure_program(const MeasureRequest& request,
                                                       std::ostream& err);

// Check the name of the local job each size runs as (<job>-measure-<n>): a DNS-1035 label of
// at most 63 characters, else an error (exit 2) saying how short the job's name must be.
util::Status check_measure_jobs(const manifest::JobSpec& spec, const std::vector<int>& sizes);

// Turn one progress report into a share of the whole run (nullopt when it says none):
// steps from global_step (or epoch and step) over steps_per_epoch x epochs, else percent,
// else finished epochs over epochs; a finish event is the whole run. t is when it was made,
// in seconds since the job started.
std::optional<estimate::ProgressPoint> progress_point(const job::Progress& progress, double t);

}  // namespace kftrain::backend::local
