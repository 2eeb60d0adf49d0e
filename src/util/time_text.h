#pragma once

#include <ctime>
#include <optional>
#include <string>

namespace kftrain::util {

// Parse an RFC 3339 timestamp ("2024-05-01T10:00:00Z", fractions and offsets
// allowed) into seconds since the epoch; nullopt when it is not one.
std::optional<std::time_t> parse_timestamp(const std::string& text);

// Parse an RFC 3339 timestamp as parse_timestamp does, keeping its fraction of a second.
std::optional<double> parse_timestamp_seconds(const std::string& text);

// Format a duration as "45s", "3m12s", "2h5m" or "3d4h"; negative counts as 0.
std::string format_duration(double seconds);

// Return a timeout as flags give it: "0.3s" below a minute, as format_duration above ("2h0m").
std::string format_timeout(double seconds);

// Parse a duration as kubectl takes it ("2h", "1h30m", "90s", "500ms", "0")
// into seconds; nullopt when it is not one.
std::optional<double> parse_duration(const std::string& text);

// Format a time as RFC 3339 UTC ("2024-05-01T10:00:00Z").
std::string format_timestamp(std::time_t time);

}  // namespace kftrain::util
