#pragma once

#include <vector>

namespace kftrain::util {

// Return the median of values: the middle one, or the mean of the middle two; 0 when empty.
double median(std::vector<double> values);

}  // namespace kftrain::util
