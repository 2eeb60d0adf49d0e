#pragma once

#include <ctime>
#include <ostream>
#include <string>

namespace kftrain::cli::view {

// Print "Label:     value" with the value in the column describe-style views use; nothing for
// an empty value; an empty label continues the field above. The value is shown as one line,
// its control characters and newlines escaped (util::escape_line): values come from the
// cluster and from programs.
void print_field(std::ostream& out, const char* label, const std::string& value);

// Return a timestamp as given with how long ago it was ("2026-01-02T03:04:05Z (5m ago)"), or
// as given when it does not parse.
std::string format_time_field(const std::string& when, std::time_t now);

}  // namespace kftrain::cli::view
