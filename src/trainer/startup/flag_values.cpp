#include "trainer/startup/flag_values.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/text.h"

namespace kftrain::trainer {
namespace {

util::Error flag_error(const std::string& flag, const std::string& what, const std::string& raw) {
    return util::error(fmt::format("{}: {} (got {})", flag, what, raw.empty() ? "\"\"" : raw));
}

}  // namespace

util::Result<int64_t> flag_int(const std::string& flag, const std::string& raw, int64_t min,
                               int64_t max) {
    int64_t value = 0;
    try {
        std::size_t used = 0;
        value = std::stoll(raw, &used);
        if (used != raw.size()) {
            return flag_error(flag, "must be an integer", raw);
        }
    } catch (const std::exception&) {
        return flag_error(flag, "must be an integer", raw);
    }
    if (value < min || value > max) {
        const auto range = max == INT32_MAX ? fmt::format("must be >= {}", min)
                                            : fmt::format("must be between {} and {}", min, max);
        return flag_error(flag, range, raw);
    }
    return value;
}

util::Result<double> flag_double(const std::string& flag, const std::string& raw, double min,
                                 bool exclusive, double max) {
    const auto parsed = util::parse_number(raw, false);
    if (!parsed) {
        return flag_error(flag, "must be a number", raw);
    }
    const double value = *parsed;
    const bool below = exclusive ? value <= min : value < min;
    if (below || value > max) {
        const auto bound = fmt::format("must be {} {}", exclusive ? ">" : ">=", min);
        const auto range = max < 1e30 ? fmt::format("{} and <= {}", bound, max) : bound;
        return flag_error(flag, range, raw);
    }
    return value;
}

util::Result<double> flag_auto_or_positive(const std::string& flag, const std::string& raw,
                                           double min, double max) {
    if (raw == "auto") {
        return 0.0;
    }
    auto value = flag_double(flag, raw, min, false, max);
    if (!value.ok()) {
        return flag_error(flag, fmt::format("must be auto or a number >= {} and <= {}", min, max),
                          raw);
    }
    return value;
}

util::Result<bool> flag_bool(const std::string& flag, const std::string& raw) {
    if (raw == "true") {
        return true;
    }
    if (raw == "false") {
        return false;
    }
    return flag_error(flag, "must be true or false", raw);
}

util::Result<std::string> flag_choice(const std::string& flag, const std::string& raw,
                                      const std::vector<std::string>& choices) {
    if (std::find(choices.begin(), choices.end(), raw) != choices.end()) {
        return raw;
    }
    return flag_error(flag, fmt::format("must be one of {}", fmt::join(choices, ", ")), raw);
}

}  // namespace kftrain::trainer
