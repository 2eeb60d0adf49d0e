#include "cli/view/field_text.h"

#include <fmt/format.h>

#include "util/text.h"
#include "util/time_text.h"

namespace kftrain::cli::view {

void print_field(std::ostream& out, const char* label, const std::string& value) {
    if (!value.empty()) {
        std::string head = *label == '\0' ? "" : std::string(label) + ":";
        out << fmt::format("{:<11} {}\n", head, util::escape_line(value));
    }
}

std::string format_time_field(const std::string& when, std::time_t now) {
    auto at = util::parse_timestamp(when);
    if (!at) {
        return when;
    }
    return fmt::format("{} ({} ago)", when, util::format_duration(std::difftime(now, *at)));
}

}  // namespace kftrain::cli::view
