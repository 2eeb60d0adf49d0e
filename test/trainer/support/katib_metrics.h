#pragma once

// Read output lines as Katib's StdOut metrics collector does.

#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace trainer_test {

// Katib's default metrics filter, as its StdOut collector applies it to every line.
inline const std::regex& katib_filter() {
    static const std::regex filter(R"(([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?))");
    return filter;
}

// Return the (name, value text) pairs the filter finds in one line, in order.
inline std::vector<std::pair<std::string, std::string>> katib_pairs(const std::string& line) {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::sregex_iterator it(line.begin(), line.end(), katib_filter()), end; it != end; ++it) {
        out.emplace_back((*it)[1].str(), (*it)[2].str());
    }
    return out;
}

// Tell whether the filter reads accuracy or loss from a line.
inline bool has_katib_metric(const std::string& line) {
    for (const auto& [name, value] : katib_pairs(line)) {
        if (name == "accuracy" || name == "loss") {
            return true;
        }
    }
    return false;
}

}  // namespace trainer_test
