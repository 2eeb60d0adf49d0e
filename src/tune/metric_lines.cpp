#include "tune/metric_lines.h"

#include <regex>

#include "util/text.h"

namespace kftrain::tune {

std::vector<MetricValue> parse_metric_line(const std::string& line) {
    static const std::regex filters[] = {std::regex(k_metrics_filters[0]),
                                         std::regex(k_metrics_filters[1])};
    std::vector<MetricValue> values;
    // std::regex recurses per character: a megabyte line could exhaust the stack, and no
    // metric line is long.
    constexpr std::size_t k_longest_metric_line = 4096;
    if (line.size() > k_longest_metric_line ||
        (line.find('=') == std::string::npos && line.find(": ") == std::string::npos)) {
        return values;
    }
    for (const std::regex& filter : filters) {
        for (auto it = std::sregex_iterator(line.begin(), line.end(), filter);
             it != std::sregex_iterator(); ++it) {
            // Katib takes the first group as the name and the second as the value; a match
            // whose value is no number ("lr=" at a line's end) is reported unavailable, so
            // skipped here.
            auto value = util::parse_number((*it)[2].str(), false);
            if (value) {
                values.push_back({(*it)[1].str(), *value});
            }
        }
    }
    return values;
}

std::map<std::string, double> reduce_metrics(const std::vector<MetricValue>& values,
                                             bool maximize) {
    std::map<std::string, double> reduced;
    for (const auto& [name, value] : values) {
        auto [it, inserted] = reduced.emplace(name, value);
        if (!inserted) {
            it->second = maximize ? std::max(it->second, value) : std::min(it->second, value);
        }
    }
    return reduced;
}

std::map<std::string, double> reduce_trial_metrics(const std::vector<MetricValue>& lines,
                                                   const std::vector<MetricValue>& progress,
                                                   bool maximize) {
    std::map<std::string, double> reduced = reduce_metrics(lines, maximize);
    for (const auto& [name, value] : reduce_metrics(progress, maximize)) {
        reduced.emplace(name, value);  // only where no NAME=VALUE line reported it
    }
    return reduced;
}

}  // namespace kftrain::tune
