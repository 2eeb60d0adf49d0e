#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::cli::view {

// How a verb prints: a table, a wider table, JSON or YAML.
enum class OutputFormat { Table, Wide, Json, Yaml };

// The formats of the verbs that show jobs (status, list): "" or table, wide, json, yaml.
inline const std::vector<OutputFormat> k_job_formats = {OutputFormat::Table, OutputFormat::Wide,
                                                        OutputFormat::Json, OutputFormat::Yaml};

// Return the name -o takes for a format: "table", "wide", "json" or "yaml".
const char* output_format_name(OutputFormat format);

// Parse the value of -o/--output among the formats a verb offers; "" is the first of them.
// The error names the flag, the formats offered and the value:
// "-o/--output: must be table, wide, json or yaml (got xml)".
util::Result<OutputFormat> parse_output_format(const std::string& text,
                                               const std::vector<OutputFormat>& offered);

}  // namespace kftrain::cli::view
