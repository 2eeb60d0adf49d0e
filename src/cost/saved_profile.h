#pragma once

#include <optional>
#include <string>

#include "estimate/program/profile.h"
#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::cost {

// Return a fingerprint of what makes a job's program run as it does: its kind and runtime,
// command, args, environment, processes per replica, trainer settings and resources. A
// saved profile is used only for a job of the same fingerprint.
std::string program_fingerprint(const manifest::JobSpec& spec);

// Return the fingerprint of a job's program without its cpu and memory: what a profile's
// measured use (peak memory, cores) belongs to, so that a job whose resources differ from the
// measured one's is still known. GPUs stay in it: on a GPU the program holds other memory.
std::string program_identity(const manifest::JobSpec& spec);

// Return where a job's measured profile is saved: <state>/kftrain/profiles/<job>.json, beside
// the local jobs' directory, for a measurement on this machine; <job>.cluster.json for one on
// a cluster (estimate --measure --on-cluster).
std::string saved_profile_path(const std::string& job, bool cluster = false);

// Check that --profile-out can take a profile before anything is measured: its directory
// exists and can be written, and the path is free or a regular file holding a profile kftrain
// wrote (replaced). A device, FIFO, directory, symbolic link or a file of anything else is
// refused (exit 2, naming the flag and the path): kftrain runs as root in CI and containers,
// where replacing /dev/null or a user's file would do harm.
util::Status check_profile_out(const std::string& path);

// Return the profile an earlier `estimate --measure` of this job saved, when it was measured
// with the job's program and settings as they are now (else nullopt: measure again). For a job
// that runs on a cluster (on_cluster) a measurement on the cluster with the job's image comes
// first, then one on this machine; for a job that runs here, only one made here.
std::optional<estimate::ProgramProfile> read_saved_profile(const manifest::JobSpec& spec,
                                                           bool on_cluster);

// Return the profile whose measured use (peak memory, cores) tells what this job's program
// needs, whatever resources either asks for: a saved profile of the job's name whose program_id
// is the job's program_identity and that read some replica's memory. For a job that runs on a
// cluster (on_cluster) the cluster's measurement of the job's image comes first, then one made
// here. A profile of an older kftrain (no program_id) is none: it cannot tell the program.
std::optional<estimate::ProgramProfile> read_measured_use(const manifest::JobSpec& spec,
                                                          bool on_cluster);

// Return the profile saved for a job of this name (cluster_first: the cluster's measurement,
// then this machine's; else the other way round) whose use read some replica's memory, for a
// job known only by its name (a running or failed one): nothing tells whether its program is
// still the one measured, so say when it was.
std::optional<estimate::ProgramProfile> read_named_profile(const std::string& job,
                                                           bool cluster_first);

}  // namespace kftrain::cost
