#include "util/stats.h"

#include <algorithm>

namespace kftrain::util {

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double percentile(std::vector<double> values, double q) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const double at = std::clamp(q, 0.0, 100.0) / 100 * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(at);
    if (below + 1 >= values.size()) {
        return values.back();
    }
    const double share = at - static_cast<double>(below);
    return values[below] + share * (values[below + 1] - values[below]);
}

}  // namespace kftrain::util
