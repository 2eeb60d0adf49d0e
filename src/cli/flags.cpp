#include "cli/flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/time_text.h"

namespace kftrain::cli {
namespace {

struct DryRunName {
    const char* name;
    job::DryRun value;
};

// The values --dry-run takes; "none" is the options' own "not given".
constexpr DryRunName k_dry_runs[] = {{"client", job::DryRun::Client},
                                     {"server", job::DryRun::Server}};

}  // namespace

std::vector<std::string> dry_run_values() {
    std::vector<std::string> names;
    for (const DryRunName& dry_run : k_dry_runs) {
        names.emplace_back(dry_run.name);
    }
    return names;
}

util::Result<job::DryRun> parse_dry_run(const std::string& text) {
    if (text.empty()) {
        return job::DryRun::Client;
    }
    for (const DryRunName& dry_run : k_dry_runs) {
        if (text == dry_run.name) {
            return dry_run.value;
        }
    }
    if (text == "none") {
        return job::DryRun::None;
    }
    return util::error(
        fmt::format("--dry-run: must be {} (got {})", fmt::join(dry_run_values(), " or "), text));
}

std::string duration_help(const std::string& what) {
    return fmt::format("{} ({})", what, util::k_duration_forms);
}

}  // namespace kftrain::cli
