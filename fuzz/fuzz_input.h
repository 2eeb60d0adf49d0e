#pragma once

// Helpers shared by the fuzz targets: inputs that hold several texts separate them with NUL
// bytes, which no job file, template or kubectl output contains.

#include <algorithm>
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

// Return whether text holds a YAML document whose first token is ',': yaml-cpp 0.7's
// YAML::LoadAll loops forever on it, allocating as it goes, so every caller of
// manifest::parse_yaml hangs (kftrain render -f job.yaml, --template, --set env=,). The
// targets skip such inputs until parse_yaml refuses them (fuzz/known/yaml-cpp-comma-hang/), so
// that the bounded runs keep looking for other findings.
inline bool yaml_cpp_hangs_on(const std::string& text) {
    bool document_start = true;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t end = std::min(text.find('\n', i), text.size());
        std::size_t at = i;
        if (text.compare(at, 3, "---") == 0 || text.compare(at, 3, "...") == 0) {
            document_start = true;
            at += 3;
        } else if (document_start && text[at] == '%') {
            at = end;  // a directive
        }
        if (document_start) {
            if (text.compare(at, 3, "\xef\xbb\xbf") == 0) {
                at += 3;
            }
            while (at < end && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r')) {
                ++at;
            }
            if (at < end && text[at] == ',') {
                return true;
            }
            if (at < end && text[at] != '#') {
                document_start = false;
            }
        }
        i = end + 1;
    }
    return false;
}

// Stop the fuzzer with a message when a property every result must have does not hold: the
// abort is reported as a crash and the input saved.
[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "fuzz property violated: %s\n", what.c_str());
    std::abort();
}

}  // namespace kftrain::fuzz
