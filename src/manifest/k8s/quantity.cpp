#include "manifest/k8s/quantity.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace kftrain::manifest {
namespace {

// Kubernetes quantity suffixes: binary (Ki..Ei) and decimal (n..E).
const std::vector<std::pair<std::string, double>> k_suffixes = {
    {"Ki", 1024.0},
    {"Mi", std::pow(1024.0, 2)},
    {"Gi", std::pow(1024.0, 3)},
    {"Ti", std::pow(1024.0, 4)},
    {"Pi", std::pow(1024.0, 5)},
    {"Ei", std::pow(1024.0, 6)},
    {"n", 1e-9},
    {"u", 1e-6},
    {"m", 1e-3},
    {"k", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"E", 1e18},
    {"", 1.0},
};

// The bounds Kubernetes keeps a quantity within (resource.Quantity): a magnitude of at most
// 2^63-1 base units, and nothing finer than 1n.
constexpr double k_max_magnitude = 9223372036854775808.0;  // 2^63
constexpr double k_min_magnitude = 1e-9;

bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Return the length of a decimal exponent ("e3", "E-2") at the start of suffix, 0 if none:
// only a whole suffix of that shape is one ("1E" is an exa).
size_t exponent_length(const std::string& suffix) {
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) {
        return 0;
    }
    size_t j = (suffix[1] == '+' || suffix[1] == '-') ? 2 : 1;
    if (j == suffix.size()) {
        return 0;
    }
    for (size_t k = j; k < suffix.size(); ++k) {
        if (!is_digit(suffix[k])) {
            return 0;
        }
    }
    return suffix.size();
}

util::Error out_of_range() {
    return util::error(
        "is out of range: a quantity is below 2^63 base units (8Ei bytes) and no finer than 1n");
}

}  // namespace

util::Result<double> read_quantity(const std::string& text) {
    size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
        ++i;
    }
    bool seen_dot = false;
    size_t digit_count = 0;
    while (i < text.size() && (is_digit(text[i]) || (text[i] == '.' && !seen_dot))) {
        seen_dot = seen_dot || text[i] == '.';
        digit_count += text[i] == '.' ? 0 : 1;
        ++i;
    }
    if (digit_count == 0) {
        return util::error(k_quantity_expected);
    }
    std::string suffix = text.substr(i);
    const size_t exponent = exponent_length(suffix);
    // strtod reads the digits and the exponent together ("0e99999" is 0, "1e99999" overflows)
    // and says ERANGE where the value is past a double either way; the text is checked above to
    // be only digits, a dot and an exponent, so it reads no hex, inf or nan.
    const std::string number_text = text.substr(0, i + exponent);
    errno = 0;
    char* end = nullptr;
    const double number = std::strtod(number_text.c_str(), &end);
    if (errno == ERANGE || !std::isfinite(number)) {
        return out_of_range();
    }
    suffix = suffix.substr(exponent);
    for (const auto& [name, factor] : k_suffixes) {
        if (suffix == name) {
            const double value = number * factor;
            const double magnitude = std::fabs(value);
            if (magnitude >= k_max_magnitude || (magnitude > 0 && magnitude < k_min_magnitude)) {
                return out_of_range();
            }
            return value;
        }
    }
    return util::error(k_quantity_expected);
}

std::optional<double> parse_quantity(const std::string& text) {
    auto value = read_quantity(text);
    if (!value) {
        return std::nullopt;
    }
    return *value;
}

namespace {

std::string trim_number(double value) {
    std::string text = fmt::format("{:.2f}", value);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') {
        text.pop_back();
    }
    return text;
}

}  // namespace

namespace {

std::string rounded_text(const std::string& resource, double value) {
    const std::string base = resource.substr(resource.find('.') + 1);
    if (base == "cpu") {
        const double milli = std::round(value * 1000);
        return std::fmod(milli, 1000) == 0 ? trim_number(milli / 1000)
                                           : fmt::format("{:.0f}m", milli);
    }
    if (base == "memory" || base.find("storage") != std::string::npos ||
        base.rfind("hugepages-", 0) == 0) {
        static const char* units[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
        int unit = 0;
        while (unit < 5 && std::fabs(value) >= 1024) {
            value /= 1024;
            ++unit;
        }
        return trim_number(value) + units[unit];
    }
    return trim_number(value);
}

}  // namespace

std::string quantity_text(const std::string& resource, double value) {
    std::string text = rounded_text(resource, value);
    // Rounded, a value just under the range (2^63 base units) can read as past it: whole, it
    // reads back.
    if (std::isfinite(value) && !read_quantity(text).ok()) {
        text = fmt::format("{:.0f}", value);
    }
    return text;
}

}  // namespace kftrain::manifest
