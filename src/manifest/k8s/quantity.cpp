#include "manifest/k8s/quantity.h"

#include <cctype>
#include <cmath>
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

}  // namespace

std::optional<double> parse_quantity(const std::string& text) {
    size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
        ++i;
    }
    size_t digits_start = i;
    bool seen_dot = false;
    size_t digit_count = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) != 0 ||
                               (text[i] == '.' && !seen_dot))) {
        seen_dot = seen_dot || text[i] == '.';
        digit_count += text[i] == '.' ? 0 : 1;
        ++i;
    }
    if (digit_count == 0) {
        return std::nullopt;
    }
    double number = std::stod(text.substr(digits_start, i - digits_start));
    if (text[0] == '-') {
        number = -number;
    }
    std::string suffix = text.substr(i);
    // Decimal exponent: 1e3, 5E-2.
    if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
        size_t j = 1;
        if (suffix[j] == '+' || suffix[j] == '-') {
            ++j;
        }
        bool all_digits = j < suffix.size();
        for (size_t k = j; k < suffix.size(); ++k) {
            all_digits = all_digits && std::isdigit(static_cast<unsigned char>(suffix[k])) != 0;
        }
        if (all_digits) {
            return number * std::pow(10.0, std::stod(suffix.substr(1)));
        }
    }
    for (const auto& [name, factor] : k_suffixes) {
        if (suffix == name) {
            return number * factor;
        }
    }
    return std::nullopt;
}

}  // namespace kftrain::manifest
