#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kftrain::cli::view {

// How a verb prints: a table, a wider table, JSON, YAML, or CSV (cost, for a spreadsheet).
enum class OutputFormat { Table, Wide, Json, Yaml, Csv };

// The -o/--output formats of each verb that has the flag, declared once: validate() parses
// -o against its verb's list and shell completion offers the same names. The first is the
// default, except for describe and version, which print text unless -o names one.
// output_formats_of() finds a verb's list by its name.

// status, list and tune status: the verbs that show jobs and searches.
inline const std::vector<OutputFormat> k_job_formats = {OutputFormat::Table, OutputFormat::Wide,
                                                        OutputFormat::Json, OutputFormat::Yaml};
// render: the manifest itself.
inline const std::vector<OutputFormat> k_manifest_formats = {OutputFormat::Yaml,
                                                             OutputFormat::Json};
// cost: its table, the same data for scripts, or CSV for a spreadsheet.
inline const std::vector<OutputFormat> k_cost_formats = {OutputFormat::Table, OutputFormat::Json,
                                                         OutputFormat::Yaml, OutputFormat::Csv};
// runtimes, estimate, data ls, queues and history: a table, or the same data for scripts.
inline const std::vector<OutputFormat> k_table_formats = {OutputFormat::Table, OutputFormat::Json,
                                                          OutputFormat::Yaml};
inline const std::vector<OutputFormat> k_describe_formats = {OutputFormat::Json,
                                                             OutputFormat::Yaml};
inline const std::vector<OutputFormat> k_version_formats = {OutputFormat::Json, OutputFormat::Yaml};

// Return the -o formats of a verb by its command path ("status", "tune status"), or nullptr
// when the verb has no -o.
const std::vector<OutputFormat>* output_formats_of(std::string_view verb);

// Return the name -o takes for a format: "table", "wide", "json", "yaml" or "csv".
const char* output_format_name(OutputFormat format);

// Return the help of -o/--output for a verb's formats: "Output format: table, json or yaml";
// with text_default, "Output format: json or yaml (without -o: readable text)".
std::string output_flag_help(const std::vector<OutputFormat>& offered, bool text_default = false);

// Parse the value of -o/--output among the formats a verb offers; "" is the first of them.
// The error names the flag, the formats offered and the value:
// "-o/--output: must be table, wide, json or yaml (got xml)".
util::Result<OutputFormat> parse_output_format(const std::string& text,
                                               const std::vector<OutputFormat>& offered);

// Parse -o/--output of a verb that prints text by default (describe, version): "" is none.
util::Result<std::optional<OutputFormat>> parse_optional_output_format(
    const std::string& text, const std::vector<OutputFormat>& offered);

// Print a view's data as -o json (indented) or -o yaml: one structure, two encodings, keys in
// the data's order.
void print_data(std::ostream& out, const nlohmann::json& data, OutputFormat format);
void print_data(std::ostream& out, const nlohmann::ordered_json& data, OutputFormat format);

// Print JSON as YAML (for -o yaml).
void print_json_as_yaml(std::ostream& out, const nlohmann::json& value);

// Print items as {"items": [...]} in JSON or YAML (the -o json|yaml of a listing verb).
void print_json_items(std::ostream& out, const nlohmann::json& items, OutputFormat format);

}  // namespace kftrain::cli::view
