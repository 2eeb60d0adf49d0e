#include "usage/pod_metrics.h"

#include <nlohmann/json.hpp>

#include "manifest/k8s/quantity.h"
#include "util/json_fields.h"
#include "util/json_text.h"

namespace kftrain::usage {
namespace {

using nlohmann::json;
using util::member;
using util::string_at;

// Add one container's figure to a running sum; a missing figure makes the sum unknown.
void add_usage_figure(std::optional<double>& sum, bool& known, std::optional<double> figure) {
    if (!figure) {
        known = false;
        return;
    }
    sum = sum.value_or(0.0) + *figure;
}

std::optional<double> summary_cpu(const json& stats) {
    auto nano = util::number_at<double>(member(stats, "cpu"), "usageNanoCores");
    return nano ? std::optional<double>(*nano / 1e9) : std::nullopt;
}

std::optional<double> summary_memory(const json& stats) {
    return util::number_at<double>(member(stats, "memory"), "workingSetBytes");
}

MeasuredUsage summary_pod(const json& pod) {
    const json& containers = member(pod, "containers");
    if (!containers.is_array() || containers.empty()) {
        return {summary_cpu(pod), summary_memory(pod)};
    }
    MeasuredUsage out;
    bool cpu_known = true;
    bool memory_known = true;
    for (const json& c : containers) {
        add_usage_figure(out.cpu_cores, cpu_known, summary_cpu(c));
        add_usage_figure(out.memory_bytes, memory_known, summary_memory(c));
    }
    if (!cpu_known) {
        out.cpu_cores.reset();
    }
    if (!memory_known) {
        out.memory_bytes.reset();
    }
    return out;
}

std::optional<double> usage_quantity_at(const json& usage, const char* key) {
    const std::string text = string_at(usage, key);
    return text.empty() ? std::nullopt : manifest::parse_quantity(text);
}

MeasuredUsage metrics_pod(const json& pod) {
    MeasuredUsage out;
    bool cpu_known = true;
    bool memory_known = true;
    const json& containers = member(pod, "containers");
    if (!containers.is_array()) {
        return out;
    }
    for (const json& c : containers) {
        add_usage_figure(out.cpu_cores, cpu_known, usage_quantity_at(member(c, "usage"), "cpu"));
        add_usage_figure(out.memory_bytes, memory_known,
                         usage_quantity_at(member(c, "usage"), "memory"));
    }
    if (!cpu_known) {
        out.cpu_cores.reset();
    }
    if (!memory_known) {
        out.memory_bytes.reset();
    }
    return out;
}

util::Result<json> parse_usage_list(const std::string& text, const char* key, const char* what) {
    json parsed = util::parse_untrusted_json(text);
    if (parsed.is_discarded() || !parsed.is_object() || !member(parsed, key).is_array()) {
        return util::error(std::string("not ") + what);
    }
    return parsed;
}

}  // namespace

util::Result<PodUsageMap> read_kubelet_summary(const std::string& json_text) {
    auto parsed = parse_usage_list(json_text, "pods", "a kubelet summary (no pods list)");
    if (!parsed) {
        return parsed.error_value();
    }
    PodUsageMap out;
    for (const json& pod : member(*parsed, "pods")) {
        const json& ref = member(pod, "podRef");
        out[{string_at(ref, "namespace"), string_at(ref, "name")}] = summary_pod(pod);
    }
    return out;
}

util::Result<PodUsageMap> read_pod_metrics(const std::string& json_text) {
    auto parsed = parse_usage_list(json_text, "items", "a PodMetricsList (no items)");
    if (!parsed) {
        return parsed.error_value();
    }
    PodUsageMap out;
    for (const json& pod : member(*parsed, "items")) {
        const json& meta = member(pod, "metadata");
        out[{string_at(meta, "namespace"), string_at(meta, "name")}] = metrics_pod(pod);
    }
    return out;
}

}  // namespace kftrain::usage
