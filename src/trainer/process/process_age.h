#pragma once

#include <optional>

namespace kftrain::trainer::process {

// Return the seconds since this process started, with the dynamic loading of its libraries
// (libtorch's take a large part of a short run) included; nullopt where /proc cannot tell.
std::optional<double> process_age_s();

}  // namespace kftrain::trainer::process
