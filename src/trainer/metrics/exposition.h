#pragma once

// The Prometheus text exposition format (version 0.0.4) of one rank's metrics.

#include <string>
#include <vector>

#include "trainer/metrics/registry.h"

namespace kftrain::trainer::metrics {

// The Content-Type of the exposition.
inline constexpr const char* k_content_type = "text/plain; version=0.0.4; charset=utf-8";

// The labels every sample carries.
struct Labels {
    std::string job;   // the job's name; "": no job label
    std::string rank;  // the global rank
};

// One metric family the trainer exports, for documentation and dashboards' checks.
struct FamilyInfo {
    const char* name;
    const char* type;  // counter, gauge or histogram
    const char* help;
};

// Return every family the trainer may export, in exposition order.
const std::vector<FamilyInfo>& families();

// Escape a label value: backslash, double quote and newline.
std::string escape_label(const std::string& value);

// Render a snapshot: HELP and TYPE lines, then its samples. A gauge not yet set (loss before
// the first progress point) is left out, family and all.
std::string render_exposition(const Snapshot& values, const Labels& labels);

}  // namespace kftrain::trainer::metrics
