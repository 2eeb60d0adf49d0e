#pragma once

// What a job's resources meet against what `estimate --measure` saw its program use (docs/
// estimate.md, "Before the kill"): the checks doctor -f and submit make.

#include <optional>
#include <string>
#include <vector>

#include "doctor/report.h"
#include "estimate/program/profile.h"
#include "estimate/program/sizing.h"
#include "manifest/job_spec.h"

namespace kftrain::cost {

// A job's resources as its pods get them (in bytes and cores; nullopt: not set): the memory
// limit is resources.memory unless a limit of its own is given, and a limit alone is also the
// request, as the API server defaults it.
struct JobResources {
    std::optional<double> memory_limit;
    std::optional<double> memory_request;
    std::optional<double> cpu_request;
};

// Return a job's resources as its pods get them.
JobResources job_resources(const manifest::JobSpec& spec);

// A job's resources against its measured use.
struct SizingReview {
    estimate::ProgramProfile profile;               // the measurement (read_measured_use)
    estimate::Sizing sizing;                        // what it recommends
    std::vector<estimate::SizingFinding> findings;  // what the job's resources meet
};

// Return the review of a job against the saved profile of its program (read_measured_use),
// or nullopt when none was measured.
std::optional<SizingReview> review_job_sizing(const manifest::JobSpec& spec, bool on_cluster);

// Say when and where a profile was measured: "measured 2026-12-06 (<path>)".
std::string measured_note(const estimate::ProgramProfile& profile);

// Return what submit warns of a job (never refusing it): each finding of its review, with when
// it was measured; none when its program was never measured or its resources hold it.
std::vector<std::string> sizing_warnings(const manifest::JobSpec& spec, bool on_cluster);

// Return doctor -f's row for a job (group job): its resources against its program's measured
// use (doctor::sizing_check), or skipped where it was never measured.
doctor::Check measured_use_check(const manifest::JobSpec& spec, bool on_cluster);

}  // namespace kftrain::cost
