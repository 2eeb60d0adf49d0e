#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kftrain::trainer::mlflow {

// Limits of one runs/log-batch request, as MLflow's REST API documents them.
constexpr std::size_t k_batch_max_metrics = 1000;
constexpr std::size_t k_batch_max_params = 100;
constexpr std::size_t k_batch_max_tags = 100;

// Hold one metric value as runs/log-batch sends it.
struct MetricPoint {
    std::string key;
    double value = 0;
    int64_t timestamp_ms = 0;
    int64_t step = 0;
};

// Hold MLflow's error answer: error_code (e.g. RESOURCE_DOES_NOT_EXIST) and message.
struct MlflowError {
    std::string error_code;
    std::string message;
};

// Build the body of runs/create.
nlohmann::json create_run_body(const std::string& experiment_id, const std::string& run_name,
                               int64_t start_time_ms,
                               const std::map<std::string, std::string>& tags);

// Build the body of runs/update with a status (RUNNING, FINISHED, FAILED, KILLED).
nlohmann::json update_run_body(const std::string& run_id, const std::string& status,
                               int64_t end_time_ms);

// Split params into runs/log-batch bodies of at most k_batch_max_params each.
std::vector<nlohmann::json> param_batches(const std::string& run_id,
                                          const std::map<std::string, std::string>& params);

// Build one runs/log-batch body setting tags (at most k_batch_max_tags are kept).
nlohmann::json tag_batch_body(const std::string& run_id,
                              const std::map<std::string, std::string>& tags);

// Split metrics into runs/log-batch bodies of at most k_batch_max_metrics each; drop
// non-finite values, which JSON cannot carry.
std::vector<nlohmann::json> metric_batches(const std::string& run_id,
                                           const std::vector<MetricPoint>& metrics);

// Read error_code and message from an error body; falls back to the raw text.
MlflowError parse_mlflow_error(const std::string& body);

// Return the experiment_id of an experiments/get-by-name answer ("" when absent).
std::string experiment_id_of(const std::string& get_by_name_body);

// Return the run_id of a runs/create answer ("" when absent).
std::string run_id_of(const std::string& create_run_body);

}  // namespace kftrain::trainer::mlflow
