#include "cli/flags.h"

#include <fmt/format.h>

#include "cli/view/time_text.h"

namespace kftrain::cli {

util::Result<job::DryRun> parse_dry_run(const std::string& text) {
    if (text.empty() || text == "client") {
        return job::DryRun::Client;
    }
    if (text == "server") {
        return job::DryRun::Server;
    }
    if (text == "none") {
        return job::DryRun::None;
    }
    return util::error(fmt::format("--dry-run must be client or server (got {})", text));
}

util::Result<double> parse_interval(const std::string& flag, const std::string& text,
                                    const std::string& example) {
    auto seconds = view::parse_duration(text);
    if (!seconds || *seconds <= 0) {
        return util::error(
            fmt::format("{}: must be a positive duration such as {} (got {})", flag, example, text));
    }
    return *seconds;
}

}  // namespace kftrain::cli
