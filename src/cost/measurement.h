#pragma once

#include <optional>
#include <string>
#include <vector>

#include "estimate/program/profile.h"
#include "job/status.h"
#include "load/job_input.h"
#include "manifest/code.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cost {

// What `kftrain estimate --measure` runs, on this machine or on the cluster (--on-cluster).
struct MeasureRequest {
    manifest::JobSpec spec;     // the job, as loaded
    std::vector<int> replicas;  // --measure-replicas: the sizes to run it at
    double seconds = 60;        // --measure-seconds: at most this long at each size
    std::string profile_out;    // --profile-out: also write the profile here
    // The folder the job ships (code), read once: every size runs with a copy of it.
    std::optional<manifest::CodeBundle> code;
    // On the cluster: the sizes run side by side (--measure-parallel), and how long a size's
    // pods may take to start (queued, scheduled, images pulled) before it fails.
    bool parallel = false;
    double start_timeout_s = 600;
};

// The job as it runs at one size: named <job>-measure-<replicas>, never restarted (a crash is
// the measurement's failure, not time to measure), not elastic. Each backend then gives its
// writable volumes empty space of their own.
manifest::JobSpec measurement_job(const manifest::JobSpec& job, int replicas);

// Check the name of the job each size runs as (<job>-measure-<n>): a DNS-1035 label of at
// most 63 characters, else an error (exit 2) saying how short the job's name must be.
util::Status check_measure_jobs(const manifest::JobSpec& spec, const std::vector<int>& sizes);

// Render one size's job as submit renders it: its code, if any, attached under its own name.
util::Result<job::RenderedJob> render_measurement(manifest::JobSpec spec,
                                                  const std::optional<manifest::CodeBundle>& code);

// Turn one progress report into a share of the whole run (nullopt when it says none):
// steps from global_step (or epoch and step) over steps_per_epoch x epochs, else percent,
// else finished epochs over epochs; a finish event is the whole run. t is when it was made,
// in seconds since the job started.
std::optional<estimate::ProgressPoint> progress_point(const job::Progress& progress, double t);

// Return whether a size that has run for seconds (of at most limit_s) should run on: until
// the limit, then, when its reports are too few to measure by (a program that posts whole
// percentages every few seconds), up to extended_limit(limit_s) rather than predict from
// noise. A program that reported nothing is not waited for: it says nothing of its pace.
bool keep_measuring(const std::vector<estimate::ProgressPoint>& points, double seconds,
                    double limit_s);

// The longest a size may run when its reports are too few: four times the limit, and at
// least a minute more.
double extended_limit(double limit_s);

// The line said when a size runs on past its limit for want of reports.
std::string measuring_longer_note(const std::string& job,
                                  const std::vector<estimate::ProgressPoint>& points,
                                  double limit_s);

// A new profile of the request's job (its program, kind, fingerprint and limit), measured now.
estimate::ProgramProfile new_profile(const MeasureRequest& request);

// Return the error of a size whose job failed before it could be measured (exit 1): its reason
// and message, and the last lines of its lead replica (masked and escaped).
util::Error size_failure(const std::string& job, int replicas, const job::JobStatus& failed,
                         const std::string& lead, const std::vector<std::string>& last_lines);

// Fit one size's reports (measure_size), the error naming the size (exit 2).
util::Result<estimate::SizeMeasurement> fit_size(const MeasureRequest& request, int replicas,
                                                 const std::vector<estimate::ProgressPoint>& points,
                                                 double seconds, bool finished);

// Save the profile where the estimate finds it (saved_profile_path, by where it was measured)
// and at profile_out (when given), once it reads back: a figure the reader refuses would break
// every later use. Its source becomes where it was written last.
util::Status save_measured_profile(estimate::ProgramProfile& profile,
                                   const std::string& profile_out);

}  // namespace kftrain::cost
