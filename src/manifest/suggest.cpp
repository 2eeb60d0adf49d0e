#include "manifest/suggest.h"

#include <algorithm>
#include <cctype>

namespace kftrain::manifest {
namespace {

std::string lower(std::string s) {
    for (char& c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

// Edit distance counting a swap of two neighbouring letters as one edit.
size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) {
        d[i][0] = i;
    }
    for (size_t j = 0; j <= b.size(); ++j) {
        d[0][j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

}  // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
    std::string best;
    size_t best_distance = 0;
    std::string lowered = lower(word);
    for (const auto& candidate : candidates) {
        size_t d = edit_distance(lowered, lower(candidate));
        if (best.empty() || d < best_distance) {
            best = candidate;
            best_distance = d;
        }
    }
    // Close enough to be a typo: at most a third of the word, and at least 1 edit allowed.
    size_t allowed = std::max<size_t>(1, std::max(word.size(), best.size()) / 3);
    return best_distance <= allowed ? best : std::string();
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates,
                         const std::string& prefix) {
    std::string best = nearest(word, candidates);
    return best.empty() ? std::string() : " (did you mean " + prefix + best + "?)";
}

}  // namespace kftrain::manifest
