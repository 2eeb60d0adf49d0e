#pragma once

// Helpers shared by the fuzz targets: inputs that hold several texts separate them with NUL
// bytes, which no job file, template or kubectl output contains.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace kftrain::fuzz {

// Split data at NUL bytes into at least one text.
inline std::vector<std::string> split_nul(const uint8_t* data, std::size_t size) {
    std::vector<std::string> parts(1);
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            parts.emplace_back();
        } else {
            parts.back().push_back(static_cast<char>(data[i]));
        }
    }
    return parts;
}

// Stop the fuzzer with a message when a property every result must have does not hold: the
// abort is reported as a crash and the input saved.
[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "fuzz property violated: %s\n", what.c_str());
    std::abort();
}

}  // namespace kftrain::fuzz
