#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kftrain::tune {

// Katib's default StdOut metrics filter: NAME=VALUE pairs anywhere in a line (a tqdm bar's
// postfix among them).
inline constexpr const char* k_katib_metrics_filter =
    R"(([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?))";
// And "NAME: VALUE" pairs, as the Hugging Face Trainer's log dicts ('loss': 0.6931) and
// Keras's lines (- loss: 0.4321) print them; a colon followed by a space, so that a clock
// (10:00:01) is none.
inline constexpr const char* k_colon_metrics_filter =
    R"(([\w|-]+)'?:\s+([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?))";
// The filters the Experiment kftrain renders names, in this order, and the local search reads
// trial logs with (docs/tuning.md).
inline constexpr const char* k_metrics_filters[] = {k_katib_metrics_filter, k_colon_metrics_filter};

// One metric value, in the order the lines printed them.
struct MetricValue {
    std::string name;
    double value = 0;
};

// Return the pairs the filters of k_metrics_filters find in one line of output, as Katib's
// collector reads them; a line with neither '=' nor ": ", or longer than 4 KiB, gives none.
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
