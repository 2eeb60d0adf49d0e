#include "cli/view/log_line.h"

#include <fmt/format.h>

#include "cli/view/progress.h"
#include "util/time_text.h"

namespace kftrain::cli::view {

std::string format_log_line(const job::LogLine& line, bool raw, size_t width) {
    std::string text = line.text;
    if (!raw) {
        size_t space = text.find(' ');
        bool stamped = space != std::string::npos && util::parse_timestamp(text.substr(0, space));
        std::string stamp = stamped ? text.substr(0, space + 1) : "";
        std::string body = stamped ? text.substr(space + 1) : text;
        // A line redrawn with carriage returns (a progress bar) as a terminal leaves it: its
        // last drawing.
        for (size_t cr; (cr = body.rfind('\r')) != std::string::npos;) {
            body = cr + 1 < body.size() ? body.substr(cr + 1) : body.substr(0, cr);
        }
        auto readable = format_trainer_line(body);
        text = stamp + (readable ? *readable : body);
    }
    return fmt::format("{:<{}} | {}", line.replica, width, text);
}

}  // namespace kftrain::cli::view
