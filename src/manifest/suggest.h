#pragma once

#include <string>
#include <vector>

namespace kftrain::manifest {

// Return the candidate nearest to word by edit distance, or "" if none is close.
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

// Return " (did you mean X?)" for the nearest candidate, or "" if none is close; prefix goes
// before X (a key's path: "trainer.").
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates,
                         const std::string& prefix = "");

}  // namespace kftrain::manifest
