#pragma once

// Collect the warning lines a logger or poster prints, from any thread.
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace trainer_test {

// Collect warning lines.
struct Warnings {
    std::mutex mutex;
    std::vector<std::string> lines;
    std::function<void(const std::string&)> sink() {
        return [this](const std::string& line) {
            std::lock_guard lock(mutex);
            lines.push_back(line);
        };
    }
    std::vector<std::string> all() {
        std::lock_guard lock(mutex);
        return lines;
    }
    std::string text() {
        std::string out;
        for (const auto& l : all()) {
            out += l + "\n";
        }
        return out;
    }
};

}  // namespace trainer_test
