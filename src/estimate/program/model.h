#pragma once

#include <optional>

#include "estimate/plan_types.h"
#include "estimate/prices.h"
#include "estimate/program/profile.h"
#include "estimate/report.h"
#include "util/result.h"

namespace kftrain::estimate {

// What a program's measurements say of its step at any world size P (docs/estimate.md):
//   steps per run   n(P) = n(R) x (R / P)^e, R the smallest size measured
//   step            s(P) = a x (P / R)^(e - 1) + c x 2(P - 1) / P
// e is 1 when each process takes 1/P of the data (DistributedSampler; the step's compute
// stays), 0 when the global batch is fixed (the step's compute shrinks with P); a is the
// compute of a step at R, the part that scales with each process's share, and c the part
// that does not (communication and fixed costs, 0 at one process), at P = 2.
struct ProgramFit {
    int reference_world = 1;              // R
    double steps_reference = 1;           // n(R); 1 when the program reports no steps
    bool steps_known = false;             // the program reported its steps
    double exponent = 1;                  // e
    bool exponent_measured = false;       // from the steps reported at two sizes
    double compute_s = 0;                 // a
    double communication_s = 0;           // c
    bool communication_measured = false;  // from two sizes or more
    bool communication_clamped = false;   // the fit gave less than 0: measured as none

    double steps(int world) const;
    double compute_at(int world) const;
    double communication_at(int world) const;
};

// Fit the model to a program's profile (at least one size).
ProgramFit fit_program(const ProgramProfile& profile);

// Estimate a job from its program's profile over flags.workers (default: 1, 2, 4, 8, 16 and
// the job's replicas), priced as the trainer's estimate prices it, and make the goal's
// choice. Each size says whether it was measured, modelled between measured sizes, or
// extrapolated beyond them; every assumption is listed. Errors name the flag at fault.
util::Result<Report> program_report(const ProgramProfile& profile, const JobFacts& job,
                                    const PlanFlags& flags, const PriceCatalog& prices,
                                    const std::optional<Goal>& goal);

}  // namespace kftrain::estimate
