#include "trainer/mlflow/rest.h"

#include <cmath>

#include "util/json_fields.h"

namespace kftrain::trainer::mlflow {
namespace {

using json = nlohmann::json;

json key_values(const std::map<std::string, std::string>& items) {
    json out = json::array();
    for (const auto& [key, value] : items) {
        out.push_back({{"key", key}, {"value", value}});
    }
    return out;
}

json parse_or_null(const std::string& body) {
    return json::parse(body, nullptr, false);
}

using util::string_at;

}  // namespace

json create_run_body(const std::string& experiment_id, const std::string& run_name,
                     int64_t start_time_ms, const std::map<std::string, std::string>& tags) {
    json body = {{"experiment_id", experiment_id}, {"start_time", start_time_ms}};
    if (!run_name.empty()) {
        body["run_name"] = run_name;
    }
    body["tags"] = key_values(tags);
    return body;
}

json update_run_body(const std::string& run_id, const std::string& status, int64_t end_time_ms) {
    json body = {{"run_id", run_id}, {"status", status}};
    if (status != "RUNNING") {
        body["end_time"] = end_time_ms;
    }
    return body;
}

std::vector<json> param_batches(const std::string& run_id,
                                const std::map<std::string, std::string>& params) {
    std::vector<json> out;
    for (auto it = params.begin(); it != params.end();) {
        json list = json::array();
        for (; it != params.end() && list.size() < k_batch_max_params; ++it) {
            list.push_back({{"key", it->first}, {"value", it->second}});
        }
        out.push_back({{"run_id", run_id}, {"params", std::move(list)}});
    }
    return out;
}

json tag_batch_body(const std::string& run_id, const std::map<std::string, std::string>& tags) {
    json list = key_values(tags);
    if (list.size() > k_batch_max_tags) {
        list.erase(list.begin() + k_batch_max_tags, list.end());
    }
    return {{"run_id", run_id}, {"tags", std::move(list)}};
}

std::vector<json> metric_batches(const std::string& run_id,
                                 const std::vector<MetricPoint>& metrics) {
    std::vector<json> out;
    json list = json::array();
    for (const auto& m : metrics) {
        if (!std::isfinite(m.value)) {
            continue;
        }
        list.push_back(
            {{"key", m.key}, {"value", m.value}, {"timestamp", m.timestamp_ms}, {"step", m.step}});
        if (list.size() == k_batch_max_metrics) {
            out.push_back({{"run_id", run_id}, {"metrics", std::move(list)}});
            list = json::array();
        }
    }
    if (!list.empty()) {
        out.push_back({{"run_id", run_id}, {"metrics", std::move(list)}});
    }
    return out;
}

MlflowError parse_mlflow_error(const std::string& body) {
    const json j = parse_or_null(body);
    if (!string_at(j, "error_code").empty()) {
        return MlflowError{string_at(j, "error_code"), string_at(j, "message")};
    }
    constexpr std::size_t k_max_raw = 200;
    return MlflowError{"", body.substr(0, k_max_raw)};
}

std::string experiment_id_of(const std::string& get_by_name_body) {
    const json j = parse_or_null(get_by_name_body);
    if (!j.is_object() || !j.contains("experiment")) {
        return "";
    }
    return string_at(j["experiment"], "experiment_id");
}

std::string run_id_of(const std::string& create_run_body) {
    const json j = parse_or_null(create_run_body);
    if (!j.is_object() || !j.contains("run") || !j["run"].is_object() ||
        !j["run"].contains("info")) {
        return "";
    }
    const auto& info = j["run"]["info"];
    const std::string id = string_at(info, "run_id");
    return id.empty() ? string_at(info, "run_uuid") : id;
}

}  // namespace kftrain::trainer::mlflow
