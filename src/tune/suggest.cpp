#include "tune/suggest.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "util/text.h"

namespace kftrain::tune {
namespace {

using util::error;

constexpr std::int64_t k_max_grid_points = 1000000;

// A numeric range, parsed from a parameter's text.
struct Range {
    double min = 0;
    double max = 0;
    double step = 0;  // 0: none
    bool integer = false;
    bool log = false;
};

bool is_list(const Param& param) {
    return param.type == ParamType::Discrete || param.type == ParamType::Categorical;
}

util::Result<Range> parse_range(const Param& param) {
    Range range;
    range.integer = param.type == ParamType::Int;
    range.log = param.log && !range.integer;
    auto low = util::parse_number(param.min, range.integer);
    auto high = util::parse_number(param.max, range.integer);
    if (!low || !high || *low > *high) {
        return error(fmt::format("{}: the range {}:{} is not MIN:MAX with MIN <= MAX", param.name,
                                 param.min, param.max));
    }
    range.min = *low;
    range.max = *high;
    if (!param.step.empty()) {
        auto step = util::parse_number(param.step, range.integer);
        if (!step || *step <= 0) {
            return error(
                fmt::format("{}: step must be a number above 0 (got {})", param.name, param.step));
        }
        range.step = *step;
    } else if (range.integer) {
        range.step = 1;
    }
    if (range.log && range.min <= 0) {
        return error(fmt::format("{}: a log range needs min > 0 (got {})", param.name, param.min));
    }
    return range;
}

// Return how many points min, min+step, ... <= max a stepped range has. The tolerance keeps
// a max that lies on the grid in it despite rounding (0.1:0.5:step=0.1 has 5 points).
std::int64_t stepped_count(const Range& range) {
    double steps = std::floor((range.max - range.min) / range.step + 1e-9);
    if (steps >= static_cast<double>(std::numeric_limits<std::int64_t>::max() - 1)) {
        return std::numeric_limits<std::int64_t>::max();
    }
    return static_cast<std::int64_t>(steps) + 1;
}

// Format a drawn double: six significant digits, in the C locale as fmt always is.
std::string format_draw(double value) {
    return fmt::format("{:.6g}", value);
}

// Format a grid point: enough digits for any step, none of min + k * step's rounding noise.
std::string format_point(double value) {
    return fmt::format("{:.12g}", value);
}

std::string stepped_value(const Range& range, std::int64_t k) {
    double value = range.min + static_cast<double>(k) * range.step;
    if (range.integer) {
        return fmt::format("{}", static_cast<long long>(std::llround(value)));
    }
    return format_point(std::min(value, range.max));
}

// Keep a formatted draw inside the range: rounding to six digits may step past an end.
std::string clamp_text(const std::string& text, const Param& param, const Range& range) {
    auto value = util::parse_number(text, false);
    if (value && *value > range.max) {
        return param.max;
    }
    if (value && *value < range.min) {
        return param.min;
    }
    return text;
}

util::Result<std::int64_t> point_count(const Param& param) {
    if (is_list(param)) {
        return static_cast<std::int64_t>(param.list.size());
    }
    auto range = parse_range(param);
    if (!range) {
        return range.error_value();
    }
    if (range->step == 0) {
        return error(
            fmt::format("{}: grid search needs a step for a range of numbers, e.g. "
                        "{}={}:step=S",
                        param.name, param.name, format_space(param)));
    }
    return stepped_count(*range);
}

std::string point_at(const Param& param, std::int64_t k) {
    if (is_list(param)) {
        return param.list[static_cast<size_t>(k)];
    }
    return stepped_value(*parse_range(param), k);
}

// Return a uniform double in [0, 1) from the generator's top 53 bits, the same on every
// platform (std::uniform_real_distribution is not).
double uniform01(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Return a uniform integer in [0, n), without modulo bias.
std::int64_t uniform_index(std::mt19937_64& rng, std::int64_t n) {
    const auto span = static_cast<std::uint64_t>(n);
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                std::numeric_limits<std::uint64_t>::max() % span;
    std::uint64_t value = rng();
    while (value >= limit) {
        value = rng();
    }
    return static_cast<std::int64_t>(value % span);
}

}  // namespace

util::Result<std::vector<std::string>> grid_points(const Param& param) {
    auto count = point_count(param);
    if (!count) {
        return count.error_value();
    }
    if (*count > k_max_grid_points) {
        return error(
            fmt::format("{}: the grid of {} has {} points, more than {}; give a larger "
                        "step",
                        param.name, format_space(param), *count, k_max_grid_points));
    }
    std::vector<std::string> points;
    for (std::int64_t k = 0; k < *count; ++k) {
        points.push_back(point_at(param, k));
    }
    return points;
}

util::Result<std::int64_t> grid_size(const std::vector<Param>& params) {
    std::int64_t size = 1;
    for (const auto& param : params) {
        auto count = point_count(param);
        if (!count) {
            return count.error_value();
        }
        if (*count > 0 && size > std::numeric_limits<std::int64_t>::max() / *count) {
            return std::numeric_limits<std::int64_t>::max();
        }
        size *= *count;
    }
    return size;
}

std::uint64_t default_seed(const std::string& search_name) {
    std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
    for (unsigned char c : search_name) {
        hash = (hash ^ c) * 1099511628211ull;
    }
    return hash;
}

Suggester::Suggester(std::vector<Param> params, bool grid, std::uint64_t seed)
    : m_params(std::move(params)), m_grid(grid), m_rng(seed) {}

util::Result<Suggester> Suggester::make(const std::string& algorithm,
                                        const std::vector<Param>& params, std::uint64_t seed) {
    if (algorithm != "random" && algorithm != "grid") {
        return error(
            fmt::format("--algorithm: {} needs Katib's suggestion service on a cluster; "
                        "random and grid run locally",
                        algorithm));
    }
    if (params.empty()) {
        return error("tune: nothing to search: no parameters");
    }
    Suggester suggester(params, algorithm == "grid", seed);
    for (const auto& param : params) {
        if (is_list(param)) {
            if (param.list.empty()) {
                return error(fmt::format("{}: the list of values is empty", param.name));
            }
            continue;
        }
        auto range = parse_range(param);
        if (!range) {
            return range.error_value();
        }
    }
    if (suggester.m_grid) {
        auto size = grid_size(params);
        if (!size) {
            return size.error_value();
        }
        suggester.m_size = *size;
        for (const auto& param : params) {
            suggester.m_counts.push_back(*point_count(param));
        }
    }
    return suggester;
}

std::optional<Assignment> Suggester::next() {
    if (m_grid) {
        if (m_next >= m_size) {
            return std::nullopt;
        }
        return grid_at(m_next++);
    }
    Assignment assignment;
    for (const auto& param : m_params) {
        assignment.emplace_back(param.name, draw(param));
    }
    ++m_next;
    return assignment;
}

// The grid in the order of nested loops over the parameters, the first outermost.
Assignment Suggester::grid_at(std::int64_t index) const {
    Assignment assignment(m_params.size());
    for (size_t i = m_params.size(); i-- > 0;) {
        std::int64_t k = index % m_counts[i];
        index /= m_counts[i];
        assignment[i] = {m_params[i].name, point_at(m_params[i], k)};
    }
    return assignment;
}

// Draw as Katib's random suggestion (optuna's distributions) does: a list's values and a
// stepped range's points uniformly, a range uniformly or, when log, log-uniformly.
std::string Suggester::draw(const Param& param) {
    if (is_list(param)) {
        return param.list[static_cast<size_t>(
            uniform_index(m_rng, static_cast<std::int64_t>(param.list.size())))];
    }
    const Range range = *parse_range(param);
    if (range.log) {
        double low = std::log(range.min);
        double value = std::exp(low + uniform01(m_rng) * (std::log(range.max) - low));
        return clamp_text(format_draw(value), param, range);
    }
    if (range.step > 0) {
        return stepped_value(range, uniform_index(m_rng, stepped_count(range)));
    }
    double value = range.min + uniform01(m_rng) * (range.max - range.min);
    return clamp_text(format_draw(value), param, range);
}

}  // namespace kftrain::tune
