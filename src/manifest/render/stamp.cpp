#include "manifest/render/stamp.h"

#include <fmt/format.h>

#include <cctype>

#include "manifest/render/job_label.h"
#include "manifest/yaml/emit.h"

namespace kftrain::manifest {
namespace {

constexpr std::size_t k_label_value_max = 63;

bool is_alnum(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

std::string label_value_of(const std::string& text) {
    std::string value;
    for (char c : text) {
        value += is_alnum(c) || c == '.' || c == '_' || c == '-' ? c : '-';
    }
    size_t start = 0;
    while (start < value.size() && !is_alnum(value[start])) {
        ++start;
    }
    value = value.substr(start, k_label_value_max);
    while (!value.empty() && !is_alnum(value.back())) {
        value.pop_back();
    }
    return value;
}

void stamp_submission(YAML::Node& job, const std::string& user,
                      std::optional<double> estimated_cost) {
    if (!job.IsMap()) {
        return;
    }
    YAML::Node metadata = job["metadata"];
    if (const std::string value = label_value_of(user); !value.empty()) {
        YAML::Node labels = metadata["labels"];
        labels[k_submitted_by_label] = string_node(value);
    }
    if (estimated_cost) {
        YAML::Node annotations = metadata["annotations"];
        annotations[k_estimated_cost_annotation] =
            string_node(fmt::format("{:.4f}", *estimated_cost));
    }
}

}  // namespace kftrain::manifest
