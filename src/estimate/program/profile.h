#pragma once

#include <optional>
#include <string>
#include <vector>

#include "estimate/program/resource_use.h"
#include "estimate/range/range.h"
#include "util/result.h"

namespace kftrain::estimate {

// One report of how far a program is, at a time since its job started: what a progress line
// or a trainerStatus post says, as a share of the whole run (docs/progress.md).
struct ProgressPoint {
    double t = 0;                              // seconds since the job started
    double fraction = 0;                       // of the whole run's training done, 0..1
    std::optional<long long> steps_per_run;    // steps_per_epoch x epochs, when both are said
    std::optional<long long> steps_per_epoch;  // when said
    std::optional<double> samples_per_sec;     // when said
    std::string basis;                         // "steps", "percent" or "epochs"
};

// What a program showed when run at one size for a while.
struct SizeMeasurement {
    int replicas = 1;
    int world_size = 1;
    double seconds = 0;     // how long it ran while measured
    bool finished = false;  // it ran to its end within that time
    int reports = 0;        // progress reports that moved it on
    std::string basis;      // what the reports counted: steps, percent or epochs
    double startup_s = 0;   // the run's time outside training: from the start to its first
                            // step (processes, imports, data, the rendezvous: the first
                            // report less the training done by then at the measured rate);
                            // when it ran to its end, all of its time but its training
    double training_s = 0;  // the whole run's training at the rate measured
    double spread = 0;      // standard deviation of the rate between reports over its mean
    Spread blocks;          // how far apart its blocks of reports ran (block_times): the range
    std::optional<long long> steps_per_run;
    std::optional<long long> steps_per_epoch;
    std::optional<double> samples_per_sec;  // the median of what it reported
    std::string too_few;  // why its reports were too few to trust (report_shortage), or ""
    // On a cluster: from its submission to its lead container's start (queued, scheduled,
    // images pulled): reported, not in startup_s. None when measured on this machine.
    std::optional<double> waited_s;
    // What each replica used (peak memory, CPU); none in a profile of an older kftrain.
    std::vector<ReplicaUse> use;
};

// Where a program was measured: this machine (cluster false), or a cluster's nodes.
struct MeasuredWhere {
    bool cluster = false;
    std::string context;             // kubectl's context ("" when it could not be read)
    std::string namespace_;          // where its jobs ran
    std::vector<std::string> nodes;  // the nodes its pods ran on
    std::string hardware;            // from the nodes' labels and capacity: "NVIDIA-H100-80GB-
                                     // HBM3 x 8, p5.48xlarge", "2 CPUs, amd64"
    std::string image;               // the image its pods ran
};

// A block of reports, for the range, advances at least k_block_resolutions of their resolution
// (report_shortage), so that rounding moves its time by a tenth at most.
inline constexpr int k_block_resolutions = 10;

// Return the time per whole run of each block of consecutive advancing reports (in time
// order), a block closing at the first report k_block_resolutions of their resolution past
// its start; reports left over at the end make none.
std::vector<double> block_times(const std::vector<ProgressPoint>& points);

// Progress reports are enough to measure a rate by when at least k_min_reports of them advance
// over at least k_min_resolutions of their resolution (the least advance between two of them:
// 1% for a program that posts whole percentages), so that the rounding of each report moves
// the rate by a few percent at most. Return what is short ("3 reports over 2 of their steps
// of 1%; 5 over 10 are needed"), or "" when they are enough.
inline constexpr int k_min_reports = 5;
inline constexpr int k_min_resolutions = 10;
std::string report_shortage(const std::vector<ProgressPoint>& points);

// A program's profile: what `kftrain estimate --measure` saw when it ran the job's own
// command locally at one or more sizes. The estimate predicts from it as from a trainer's
// --benchmark profile, for any program.
struct ProgramProfile {
    std::string job;           // the job's name
    std::string program;       // its command line, for messages
    std::string kind;          // PyTorchJob or TrainJob
    std::string fingerprint;   // of what makes it run as it does (program_fingerprint)
    std::string program_id;    // of its program, resources aside (program_identity): whose
                               // use it measured; "" in a profile of an older kftrain
    std::string measured_at;   // RFC 3339 UTC
    double seconds_limit = 0;  // --measure-seconds
    int procs_per_replica = 1;
    int host_cpus = 0;                   // this machine's, where it was measured
    MeasuredWhere where;                 // this machine, or the cluster's nodes
    std::vector<SizeMeasurement> sizes;  // by world size, one each
    std::string source;                  // the file it was read from, for messages
};

// Say where a profile was measured: "on this machine (16 CPUs)" or "on the cluster (context
// kind-ml, namespace team-a, node gpu-3: NVIDIA-H100-80GB-HBM3 x 8, image ...)".
std::string measured_where_text(const ProgramProfile& profile);

// The value of "measured_from" that marks a program's profile.
inline constexpr const char* k_program_profile_mark = "program";

// Turn the reports read at one size (in the order they came) into what the estimate needs:
// the time to the first step, the rate of progress and its spread. An error says why a run
// cannot be measured: no report ("printed no progress"), or reports that never moved on.
util::Result<SizeMeasurement> measure_size(const std::vector<ProgressPoint>& points, int replicas,
                                           int world_size, double seconds, bool finished);

// Write a program's profile as JSON (what --profile-out writes and --profile reads).
std::string program_profile_json(const ProgramProfile& profile);

// Return whether a profile file's text is a program's (measured_from: program).
bool is_program_profile(const std::string& text);

// Parse a program's profile; source names the file in messages.
util::Result<ProgramProfile> parse_program_profile(const std::string& text,
                                                   const std::string& source);

}  // namespace kftrain::estimate
