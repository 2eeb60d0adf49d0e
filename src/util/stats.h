#pragma once

#include <vector>

namespace kftrain::util {

// Return the median of values: the middle one, or the mean of the middle two; 0 when empty.
double median(std::vector<double> values);

// Return the q-th percentile of values (q 0..100), interpolated between the two nearest of
// them sorted; 0 when empty.
double percentile(std::vector<double> values, double q);

}  // namespace kftrain::util
