#pragma once

#include <ostream>
#include <string>

#include "diagnose/diagnosis.h"

namespace kftrain::cli::view {

// Print a diagnosis as `kftrain diagnose` shows it: the verdict and its one-line why, the
// cause and hint, every replica's end on one time axis, and the lines that show the cause.
void print_diagnosis(std::ostream& out, const std::string& job_ref,
                     const diagnose::Diagnosis& diagnosis);

}  // namespace kftrain::cli::view
