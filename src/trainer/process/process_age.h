#pragma once

#include <optional>
#include <string>

namespace kftrain::trainer::process {

// Return the start time field of a /proc/PID/stat line, in clock ticks after boot: the 22nd
// field, counted after the command name in parentheses (which may hold spaces and ')');
// nullopt for a line that is not one.
std::optional<long long> stat_start_ticks(const std::string& stat_line);

// Return the seconds since this process started, with the dynamic loading of its libraries
// (libtorch's take a large part of a short run) included; nullopt where /proc cannot tell.
std::optional<double> process_age_s();

}  // namespace kftrain::trainer::process
