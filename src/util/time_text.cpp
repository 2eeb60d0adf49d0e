#include "util/time_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

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

std::string format_duration(double seconds) {
    // Beyond a thousand years is no estimate (and llround of beyond 2^63 is undefined).
    constexpr double k_longest = 1000.0 * 365 * 86400;
    if (seconds > k_longest) {
        return ">1000y";
    }
    long long total = seconds > 0 ? static_cast<long long>(std::llround(seconds)) : 0;
    if (total < 60) {
        return fmt::format("{}s", total);
    }
    if (total < 3600) {
        return fmt::format("{}m{}s", total / 60, total % 60);
    }
    if (total < 86400) {
        return fmt::format("{}h{}m", total / 3600, (total % 3600) / 60);
    }
    return fmt::format("{}d{}h", total / 86400, (total % 86400) / 3600);
}

std::optional<double> parse_duration(const std::string& text) {
    if (text == "0") {
        return 0.0;
    }
    double total = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        // Decimal digits with at most one point, as Go writes durations: no sign, exponent,
        // hexadecimal, nan or inf.
        const size_t number_end = text.find_first_not_of("0123456789.", pos);
        const std::string number = text.substr(pos, number_end - pos);
        if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1) {
            return std::nullopt;
        }
        const double value = std::strtod(number.c_str(), nullptr);  // too large: inf
        pos += number.size();
        size_t unit_end = text.find_first_of("0123456789.", pos);
        std::string unit =
            text.substr(pos, unit_end == std::string::npos ? std::string::npos : unit_end - pos);
        pos += unit.size();
        if (unit == "ms") {
            total += value / 1000;
        } else if (unit == "s") {
            total += value;
        } else if (unit == "m") {
            total += value * 60;
        } else if (unit == "h") {
            total += value * 3600;
        } else if (unit == "d") {
            total += value * 86400;
        } else {
            return std::nullopt;
        }
    }
    if (text.empty() || !std::isfinite(total)) {
        return std::nullopt;
    }
    return total;
}

std::string format_timeout(double seconds) {
    return seconds < 60 ? fmt::format("{:g}s", seconds) : format_duration(seconds);
}

std::string format_timestamp(std::time_t time) {
    std::tm tm{};
    gmtime_r(&time, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                       tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace kftrain::util
