#pragma once

#include <optional>
#include <string>

#include "util/result.h"

namespace kftrain::trainer::mlflow {

// Name of the file, inside the checkpoint directory, holding the MLflow run id.
constexpr const char* k_run_id_file = "mlflow_run_id";

// Return the run id kept in dir (nullopt when dir is empty, the file is missing or blank).
std::optional<std::string> read_run_id(const std::string& dir);

// Keep run_id in dir, written atomically (temporary file, then rename); creates dir.
util::Status write_run_id(const std::string& dir, const std::string& run_id);

}  // namespace kftrain::trainer::mlflow
