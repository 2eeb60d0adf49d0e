#pragma once

#include <ctime>
#include <optional>
#include <string>

#include "util/result.h"

namespace kftrain::util {

// Parse an RFC 3339 timestamp ("2024-05-01T10:00:00Z", fractions and offsets
// allowed) into seconds since the epoch; nullopt when it is not one.
std::optional<std::time_t> parse_timestamp(const std::string& text);

// Parse an RFC 3339 timestamp as parse_timestamp does, keeping its fraction of a second.
std::optional<double> parse_timestamp_seconds(const std::string& text);

// Format a time as RFC 3339 UTC ("2024-05-01T10:00:00Z").
std::string format_timestamp(std::time_t time);

// Format a time in seconds since the epoch as RFC 3339 UTC with milliseconds
// ("2024-05-01T10:00:00.123Z"), as kubectl logs --timestamps keeps a line's fraction.
std::string format_timestamp_ms(double seconds);

// The forms a duration takes, as every duration flag's help says them.
inline constexpr const char* k_duration_forms = "a duration: 90s, 1h30m, 500ms";

// The longest duration a flag takes: 876000h, 100 years. (kubectl's are at most 2^63-1 ns,
// about 292 years, and a deadline that far ahead would overflow a clock's time point.)
inline constexpr double k_longest_duration_s = 876000.0 * 3600;

// The shortest duration above 0: one nanosecond, the grammar's finest step.
inline constexpr double k_shortest_duration_s = 1e-9;

// How a flag takes a duration: its range and whether a bare whole number is seconds.
struct DurationRule {
    double least_s = 0;                    // the least it may be, inclusive
    double most_s = k_longest_duration_s;  // the most it may be, inclusive
    const char* range = "of 0 or more";    // the range in words, for the error
    bool whole_seconds = false;            // "30" is 30s (--request-timeout, as in kubectl)
    bool days = false;  // "7d" is 168h: flags kftrain reads itself, never passes to kubectl
};

// A duration of 0 or more (0 often meaning "never" or "no limit").
inline constexpr DurationRule k_any_duration{};

// A duration above 0 (an interval between looks).
inline constexpr DurationRule k_positive_duration{k_shortest_duration_s, k_longest_duration_s,
                                                  "longer than 0"};

// How long ago, in the past of kftrain's own records (history --since, prune --older-than,
// cost --since): 0 or more, days allowed ("7d", "1d12h").
inline constexpr DurationRule k_age_duration{0, k_longest_duration_s, "of 0 or more", false, true};

// kubectl's --request-timeout: 0 (no limit) or more, and a bare whole number is seconds.
inline constexpr DurationRule k_request_timeout{0, k_longest_duration_s, "of 0 or more", true};

// Parse a duration as kubectl takes it (Go's time.ParseDuration): one or more decimal numbers
// each with a unit of ns, us, µs, ms, s, m or h ("90s", "1h30m", "1.5m", "500ms"), or "0";
// with whole_seconds also a bare whole number of seconds; with days also "d" (24h). Refuses
// signs, exponents, hex, spaces, nan, inf, "d" without days and a total beyond
// k_longest_duration_s; the error says why and quotes the text ("not a duration such as 90s,
// 1h30m or 500ms (got 90)").
Result<double> parse_duration(const std::string& text, bool whole_seconds = false,
                              bool days = false);

// Parse the duration a flag was given and check it against the flag's rule, in seconds; the
// error names the flag and the value ("--deadline: not a duration such as ... (got 90)").
Result<double> parse_duration_flag(const std::string& flag, const std::string& text,
                                   const DurationRule& rule);

// Format a duration for people, as kubectl does without zero padding: "0s", "42us", "1.25ms",
// "300ms", "1.5s", "42s", "3m5s", "2h5m", "3d4h", ">1000y"; negative and nan count as 0.
std::string format_duration(double seconds);

}  // namespace kftrain::util
