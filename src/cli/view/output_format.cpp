#include "cli/view/output_format.h"

#include <fmt/format.h>

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

}  // namespace

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
    }
    return "table";
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

}  // namespace kftrain::cli::view
