#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::tune {

// Katib's default StdOut metrics filter: NAME=VALUE pairs anywhere in a line. The Experiment
// kftrain renders names it, and the local search reads trial logs with it.
inline constexpr const char* k_katib_metrics_filter =
    R"(([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?))";

// One metric value, in the order the lines printed them.
struct MetricValue {
    std::string name;
    double value = 0;
};

// Return the NAME=VALUE pairs Katib's default filter finds in one line of output; a JSON
// progress line, a line without '=' or one longer than 4 KiB gives none.
std::vector<MetricValue> parse_metric_line(const std::string& line);

// Reduce every metric's values to one as Katib's default metricStrategies do: the highest
// when the objective is maximized, the lowest when minimized (for every metric, the objective
// and the additional ones alike). Metrics that never printed a number are absent.
std::map<std::string, double> reduce_metrics(const std::vector<MetricValue>& values, bool maximize);

// Reduce a trial's metrics from its two sources as reduce_metrics does: Katib's NAME=VALUE
// lines and the metrics of its progress lines (docs/progress.md). A metric that any NAME=VALUE
// line reports is taken from those lines alone (what Katib's collector reads on a cluster);
// the progress lines give the others.
std::map<std::string, double> reduce_trial_metrics(const std::vector<MetricValue>& lines,
                                                   const std::vector<MetricValue>& progress,
                                                   bool maximize);

}  // namespace kftrain::tune
