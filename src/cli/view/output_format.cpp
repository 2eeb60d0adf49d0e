#include "cli/view/output_format.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <utility>

#include "manifest/yaml/emit.h"
#include "util/json_text.h"

namespace kftrain::cli::view {
namespace {

// "a", "a or b", "a, b or c".
std::string one_of(const std::vector<OutputFormat>& offered) {
    std::string text;
    for (size_t i = 0; i < offered.size(); ++i) {
        if (i > 0) {
            text += i + 1 == offered.size() ? " or " : ", ";
        }
        text += output_format_name(offered[i]);
    }
    return text;
}

template <typename Json>
void print_any(std::ostream& out, const Json& data, OutputFormat format) {
    if (format == OutputFormat::Yaml) {
        out << manifest::to_yaml(manifest::from_json(data));
    } else {
        out << util::json_text(data, 2) << "\n";
    }
}

}  // namespace

const std::vector<OutputFormat>* output_formats_of(std::string_view verb) {
    static const std::pair<std::string_view, const std::vector<OutputFormat>*> k_verbs[] = {
        {"render", &k_manifest_formats},   {"status", &k_job_formats},
        {"list", &k_job_formats},          {"tune status", &k_job_formats},
        {"runtimes", &k_table_formats},    {"estimate", &k_table_formats},
        {"data ls", &k_table_formats},     {"describe", &k_describe_formats},
        {"version", &k_version_formats},   {"queues", &k_table_formats},
        {"pipeline", &k_manifest_formats}, {"tune", &k_manifest_formats},
        {"diagnose", &k_describe_formats}, {"doctor", &k_table_formats},
        {"top", &k_table_formats},         {"top nodes", &k_table_formats},
        {"history", &k_table_formats},     {"cost", &k_cost_formats},
    };
    for (const auto& [name, formats] : k_verbs) {
        if (name == verb) {
            return formats;
        }
    }
    return nullptr;
}

const char* output_format_name(OutputFormat format) {
    switch (format) {
        case OutputFormat::Table:
            return "table";
        case OutputFormat::Wide:
            return "wide";
        case OutputFormat::Json:
            return "json";
        case OutputFormat::Yaml:
            return "yaml";
        case OutputFormat::Csv:
            return "csv";
    }
    return "table";
}

std::string output_flag_help(const std::vector<OutputFormat>& offered, bool text_default) {
    return fmt::format("Output format: {}{}", one_of(offered),
                       text_default ? " (without -o: readable text)" : "");
}

util::Result<OutputFormat> parse_output_format(const std::string& text,
                                               const std::vector<OutputFormat>& offered) {
    if (text.empty() && !offered.empty()) {
        return offered.front();
    }
    for (OutputFormat format : offered) {
        if (text == output_format_name(format)) {
            return format;
        }
    }
    return util::error(fmt::format("-o/--output: must be {} (got {})", one_of(offered), text));
}

util::Result<std::optional<OutputFormat>> parse_optional_output_format(
    const std::string& text, const std::vector<OutputFormat>& offered) {
    if (text.empty()) {
        return std::optional<OutputFormat>();
    }
    auto parsed = parse_output_format(text, offered);
    if (!parsed) {
        return parsed.error_value();
    }
    return std::optional<OutputFormat>(*parsed);
}

void print_data(std::ostream& out, const nlohmann::json& data, OutputFormat format) {
    print_any(out, data, format);
}

void print_data(std::ostream& out, const nlohmann::ordered_json& data, OutputFormat format) {
    print_any(out, data, format);
}

void print_json_as_yaml(std::ostream& out, const nlohmann::json& value) {
    print_data(out, value, OutputFormat::Yaml);
}

void print_json_items(std::ostream& out, const nlohmann::json& items, OutputFormat format) {
    print_data(out, nlohmann::json{{"items", items}}, format);
}

}  // namespace kftrain::cli::view
