#include "util/time_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace kftrain::util {
namespace {

// Read the zone after the seconds: "Z", "+02:00" or "-0130"; return its offset in seconds.
std::optional<long> zone_offset(const std::string& zone) {
    if (zone == "Z" || zone == "z") {
        return 0;
    }
    int hours = 0;
    int minutes = 0;
    char sign = 0;
    if (std::sscanf(zone.c_str(), "%c%2d:%2d", &sign, &hours, &minutes) != 3 &&
        std::sscanf(zone.c_str(), "%c%2d%2d", &sign, &hours, &minutes) != 3) {
        return std::nullopt;
    }
    if (sign != '+' && sign != '-') {
        return std::nullopt;
    }
    long offset = hours * 3600L + minutes * 60L;
    return sign == '+' ? offset : -offset;
}

}  // namespace

std::optional<double> parse_timestamp_seconds(const std::string& text) {
    std::tm tm{};
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                    &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
        return std::nullopt;
    }
    size_t pos = static_cast<size_t>(consumed);
    double fraction = 0;
    if (pos < text.size() && text[pos] == '.') {
        double scale = 0.1;
        ++pos;
        while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
            fraction += scale * (text[pos] - '0');
            scale /= 10;
            ++pos;
        }
    }
    auto offset = zone_offset(text.substr(pos));
    if (!offset) {
        return std::nullopt;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return static_cast<double>(timegm(&tm) - *offset) + fraction;
}

std::optional<std::time_t> parse_timestamp(const std::string& text) {
    auto seconds = parse_timestamp_seconds(text);
    if (!seconds) {
        return std::nullopt;
    }
    return static_cast<std::time_t>(std::floor(*seconds));
}

std::string format_timestamp(std::time_t time) {
    std::tm tm{};
    gmtime_r(&time, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                       tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string format_timestamp_ms(double seconds) {
    const long long millis = std::llround(seconds * 1000);
    const std::string text = format_timestamp(static_cast<std::time_t>(millis / 1000));
    return fmt::format("{}.{:03}Z", text.substr(0, text.size() - 1), millis % 1000);
}

// Durations: kubectl's grammar and the one format shown to people.
namespace {

// The most nanoseconds Go's time.Duration (an int64) holds; past it Go says "overflow".
constexpr uint64_t k_most_ns = (uint64_t{1} << 63) - 1;
constexpr uint64_t k_ns_per_s = 1000000000;
// The longest duration kftrain takes, in nanoseconds.
constexpr uint64_t k_longest_ns = static_cast<uint64_t>(k_longest_duration_s) * k_ns_per_s;

struct Unit {
    std::string_view name;
    uint64_t ns;
};

// Go's units: "µs" as U+00B5 (micro sign) and U+03BC (Greek mu).
constexpr Unit k_units[] = {
    {"ns", 1},       {"us", 1000},      {"\xC2\xB5s", 1000},    {"\xCE\xBCs", 1000},
    {"ms", 1000000}, {"s", k_ns_per_s}, {"m", 60 * k_ns_per_s}, {"h", 3600 * k_ns_per_s}};

// Why a text is no duration; None when it is one.
enum class Problem { None, Form, Days, Negative, TooLong };

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Read the digits at the start of text as an integer, as Go's leadingInt does; TooLong when
// they pass the longest duration.
Problem leading_int(std::string_view& text, uint64_t& value) {
    size_t i = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) {
        if (value > k_most_ns / 10) {
            return Problem::TooLong;
        }
        value = value * 10 + static_cast<uint64_t>(text[i] - '0');
        if (value > k_most_ns) {
            return Problem::TooLong;
        }
    }
    text.remove_prefix(i);
    return Problem::None;
}

// Read the digits of a fraction as Go's leadingFraction does: those past the precision of
// an int64 are read and dropped. Return whether there was any digit.
bool leading_fraction(std::string_view& text, uint64_t& fraction, double& scale) {
    size_t i = 0;
    bool full = false;
    for (; i < text.size() && is_digit(text[i]); ++i) {
        if (full || fraction > k_most_ns / 10) {
            full = true;
            continue;
        }
        fraction = fraction * 10 + static_cast<uint64_t>(text[i] - '0');
        scale *= 10;
    }
    text.remove_prefix(i);
    return i > 0;
}

// A day, which only the flags that take days read (DurationRule::days).
constexpr Unit k_day{"d", 86400 * k_ns_per_s};

// Read one "<number><unit>" from the start of text into ns; with days, "d" is a unit too.
Problem read_piece(std::string_view& text, uint64_t& ns, bool days) {
    if (text.empty() || (text[0] != '.' && !is_digit(text[0]))) {
        return Problem::Form;
    }
    uint64_t whole = 0;
    const size_t before = text.size();
    if (leading_int(text, whole) == Problem::TooLong) {
        return Problem::TooLong;
    }
    const bool digits_before = text.size() != before;
    uint64_t fraction = 0;
    double scale = 1;
    bool digits_after = false;
    if (!text.empty() && text[0] == '.') {
        text.remove_prefix(1);
        digits_after = leading_fraction(text, fraction, scale);
    }
    if (!digits_before && !digits_after) {
        return Problem::Form;  // "." or ".s"
    }
    size_t unit_end = 0;
    while (unit_end < text.size() && text[unit_end] != '.' && !is_digit(text[unit_end])) {
        ++unit_end;
    }
    const std::string_view name = text.substr(0, unit_end);
    text.remove_prefix(unit_end);
    const auto* unit = std::find_if(std::begin(k_units), std::end(k_units),
                                    [&](const Unit& u) { return u.name == name; });
    if (days && name == k_day.name) {
        unit = &k_day;
    } else if (unit == std::end(k_units)) {
        return name == "d" ? Problem::Days : Problem::Form;  // "" is a bare number: "90"
    }
    if (whole > k_most_ns / unit->ns) {
        return Problem::TooLong;
    }
    ns = whole * unit->ns;
    ns += static_cast<uint64_t>(static_cast<double>(fraction) *
                                (static_cast<double>(unit->ns) / scale));
    return ns > k_most_ns ? Problem::TooLong : Problem::None;
}

// Parse text as Go's time.ParseDuration does, without its sign, into nanoseconds.
Problem parse_ns(std::string_view text, uint64_t& total, bool days) {
    total = 0;
    if (text == "0") {
        return Problem::None;
    }
    if (text.empty()) {
        return Problem::Form;
    }
    while (!text.empty()) {
        uint64_t ns = 0;
        if (Problem problem = read_piece(text, ns, days); problem != Problem::None) {
            return problem;
        }
        if (ns > k_most_ns - total) {
            return Problem::TooLong;
        }
        total += ns;
    }
    return Problem::None;
}

// Parse a bare whole number of seconds (--request-timeout 30) into nanoseconds.
Problem parse_whole_seconds(std::string_view text, uint64_t& total) {
    uint64_t seconds = 0;
    if (leading_int(text, seconds) == Problem::TooLong || seconds > k_longest_ns / k_ns_per_s) {
        return Problem::TooLong;
    }
    total = seconds * k_ns_per_s;
    return Problem::None;
}

// Return whether text is only digits and points: a number that lacks its unit ("90", "1.5").
bool bare_number(const std::string& text) {
    return text.find_first_of("0123456789") != std::string::npos &&
           text.find_first_not_of("0123456789.") == std::string::npos;
}

// Say why text is no duration, quoting it.
std::string problem_text(Problem problem, const std::string& text) {
    constexpr const char* k_not = "not a duration such as 90s, 1h30m or 500ms";
    switch (problem) {
        case Problem::Negative:
            return fmt::format("must not be negative (got {})", text);
        case Problem::TooLong:
            return fmt::format("must be a duration of at most 876000h, 100 years (got {})", text);
        case Problem::Days:
            return fmt::format("{} (got {}; kubectl takes no d: write a day as 24h)", k_not, text);
        default:
            break;
    }
    if (bare_number(text)) {
        return fmt::format("{} (got {}; add a unit, as in {}s)", k_not, text, text);
    }
    return fmt::format("{} (got {})", k_not, text.empty() ? "\"\"" : text);
}

// Return value with at most decimals digits after the point and no trailing zeros: "1.25".
std::string trimmed(double value, int decimals) {
    std::string text = fmt::format("{:.{}f}", value, decimals);
    if (text.find('.') != std::string::npos) {
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') {
            text.pop_back();
        }
    }
    return text;
}

}  // namespace

Result<double> parse_duration(const std::string& text, bool whole_seconds, bool days) {
    const bool minus = !text.empty() && text[0] == '-';
    const std::string_view rest = std::string_view(text).substr(minus ? 1 : 0);
    uint64_t ns = 0;
    Problem problem = whole_seconds && !rest.empty() &&
                              rest.find_first_not_of("0123456789") == std::string_view::npos
                          ? parse_whole_seconds(rest, ns)
                          : parse_ns(rest, ns, days);
    if (problem == Problem::None && ns > k_longest_ns) {
        problem = Problem::TooLong;
    }
    if (minus && problem == Problem::None) {
        problem = Problem::Negative;
    }
    if (problem != Problem::None) {
        return error(problem_text(problem, text));
    }
    return static_cast<double>(ns / k_ns_per_s) + static_cast<double>(ns % k_ns_per_s) / 1e9;
}

Result<double> parse_duration_flag(const std::string& flag, const std::string& text,
                                   const DurationRule& rule) {
    auto seconds = parse_duration(text, rule.whole_seconds, rule.days);
    if (!seconds) {
        return error(fmt::format("{}: {}", flag, seconds.error()));
    }
    if (*seconds < rule.least_s || *seconds > rule.most_s) {
        return error(fmt::format("{}: must be a duration {} (got {})", flag, rule.range, text));
    }
    return *seconds;
}

std::string format_duration(double seconds) {
    // Beyond a thousand years is no estimate (and llround of beyond 2^63 is undefined).
    constexpr double k_longest_shown = 1000.0 * 365 * 86400;
    if (!(seconds > 0)) {
        return "0s";
    }
    if (seconds > k_longest_shown) {
        return ">1000y";
    }
    // Each form's bound is where its rounding would reach the next form's.
    if (seconds < 999.5e-6) {
        return fmt::format("{:.0f}us", seconds * 1e6);
    }
    if (seconds < 9.995e-3) {
        return trimmed(seconds * 1e3, 2) + "ms";
    }
    if (seconds < 0.9995) {
        return fmt::format("{:.0f}ms", seconds * 1e3);
    }
    if (seconds < 59.95) {
        return trimmed(seconds, seconds < 9.995 ? 2 : 1) + "s";
    }
    const long long whole = std::llround(seconds);
    if (whole < 3600) {
        return fmt::format("{}m{}s", whole / 60, whole % 60);
    }
    if (whole < 86400) {
        return fmt::format("{}h{}m", whole / 3600, whole % 3600 / 60);
    }
    return fmt::format("{}d{}h", whole / 86400, whole % 86400 / 3600);
}

}  // namespace kftrain::util
