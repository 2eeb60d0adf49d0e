#pragma once

#include <optional>
#include <string>

namespace kftrain::manifest {

// Read nprocPerNode as a count of processes per node: "4" is 4; nullopt when it is one of
// its words (auto, cpu, gpu), unset, or not a positive integer. A count past an int's range
// reads as the largest int, so validation can name it as too large.
std::optional<int> nproc_count(const std::string& nproc);

// Return whether nprocPerNode is unset or one of its words: auto, cpu, gpu.
bool nproc_is_word(const std::string& nproc);

}  // namespace kftrain::manifest
