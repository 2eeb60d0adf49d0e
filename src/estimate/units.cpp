#include "estimate/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace kftrain::estimate {
namespace {

// Split "12.5Gbps" into 12.5 and "Gbps"; nullopt when it does not start with a number.
std::optional<std::pair<double, std::string>> split_number(const std::string& text) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) {
        return std::nullopt;
    }
    const char* begin = text.c_str();
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    // Decimal only: strtod would also read "0x10" as 16, and "inf" and "nan".
    const bool decimal = std::all_of(begin, static_cast<const char*>(end), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
               c == '-' || c == '+';
    });
    if (end == begin || !decimal || !std::isfinite(value) || value < 0) {
        return std::nullopt;
    }
    std::string unit(end);
    while (!unit.empty() && unit.front() == ' ') {
        unit.erase(0, 1);
    }
    return std::make_pair(value, unit);
}

// Return the multiplier of a prefix letter: K, M, G, T (decimal, or binary with "i").
std::optional<double> prefix_factor(const std::string& prefix) {
    static const std::vector<std::pair<std::string, double>> k_prefixes = {
        {"", 1.0},
        {"K", 1e3},
        {"k", 1e3},
        {"M", 1e6},
        {"G", 1e9},
        {"T", 1e12},
        {"Ki", 1024.0},
        {"Mi", 1048576.0},
        {"Gi", 1073741824.0},
        {"Ti", 1099511627776.0},
    };
    for (const auto& [name, factor] : k_prefixes) {
        if (name == prefix) {
            return factor;
        }
    }
    return std::nullopt;
}

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<double> parse_bandwidth(const std::string& text) {
    const auto split = split_number(text);
    if (!split || split->first <= 0) {
        return std::nullopt;
    }
    const auto& [value, unit] = *split;
    // Longest suffixes first so "bps" is not taken for "B/s".
    static const std::vector<std::pair<std::string, double>> k_suffixes = {
        {"bps", 1.0 / 8}, {"b/s", 1.0 / 8}, {"Bps", 1.0}, {"B/s", 1.0}};
    for (const auto& [suffix, scale] : k_suffixes) {
        if (ends_with(unit, suffix)) {
            const auto factor = prefix_factor(unit.substr(0, unit.size() - suffix.size()));
            if (factor) {
                return value * *factor * scale;
            }
        }
    }
    return std::nullopt;
}

std::optional<double> parse_latency(const std::string& text) {
    const auto split = split_number(text);
    if (!split) {
        return std::nullopt;
    }
    static const std::vector<std::pair<std::string, double>> k_units = {
        {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
    for (const auto& [unit, factor] : k_units) {
        if (split->second == unit) {
            return split->first * factor;
        }
    }
    return std::nullopt;
}

std::optional<double> parse_money(const std::string& text) {
    const std::string digits = !text.empty() && text.front() == '$' ? text.substr(1) : text;
    const auto split = split_number(digits);
    if (!split || !split->second.empty()) {
        return std::nullopt;
    }
    return split->first;
}

std::string format_bandwidth(double bytes_per_s) {
    static const std::vector<std::pair<double, const char*>> k_steps = {
        {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}, {1.0, ""}};
    auto scaled = [](double value) {
        for (const auto& [factor, prefix] : k_steps) {
            if (value >= factor) {
                return std::make_pair(value / factor, std::string(prefix));
            }
        }
        return std::make_pair(value, std::string());
    };
    const auto [bytes, byte_prefix] = scaled(bytes_per_s);
    const auto [bits, bit_prefix] = scaled(bytes_per_s * 8);
    return fmt::format("{:.3g} {}B/s ({:.3g} {}bps)", bytes, byte_prefix, bits, bit_prefix);
}

std::string format_money(double dollars) {
    if (!std::isfinite(dollars)) {
        return dollars > 0 ? "$inf" : "$nan";
    }
    // Digits with commas up to trillions; beyond (absurd resources) in powers of ten, which
    // llround could not hold past 2^63 anyway.
    if (dollars >= 1e15) {
        return fmt::format("${:.3g}", dollars);
    }
    if (dollars < 1.0) {
        return fmt::format("${:.4f}", dollars);
    }
    if (dollars < 1000.0) {
        return fmt::format("${:.2f}", dollars);
    }
    std::string digits = std::to_string(std::llround(dollars));
    for (auto i = static_cast<long>(digits.size()) - 3; i > 0; i -= 3) {
        digits.insert(static_cast<std::size_t>(i), ",");
    }
    return "$" + digits;
}

}  // namespace kftrain::estimate
