#pragma once

// doctor -f's check of a job's resources against what `estimate --measure` saw its program use
// (docs/doctor.md, "measured use"). Pure: the profile is read above.

#include <string>
#include <vector>

#include "doctor/report.h"
#include "estimate/program/sizing.h"

namespace kftrain::doctor {

// The check's name, in the table and the JSON.
inline constexpr const char* k_sizing_check = "measured use";

// Return the check of a job's resources against its program's measured use: failed (doctor
// exits 1) when its memory limit is under the measured peak, a warning when it asks far more
// than was used, else ok; measured says when and where it was measured.
Check sizing_check(const std::string& group, const estimate::Sizing& sizing,
                   const std::vector<estimate::SizingFinding>& findings,
                   const std::string& measured);

// Return the row of a job whose program was never measured: skipped, and not needed.
Check unmeasured_check(const std::string& group);

}  // namespace kftrain::doctor
