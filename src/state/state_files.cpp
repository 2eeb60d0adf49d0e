#include "state/state_files.h"

#include <fmt/format.h>

#include <cstdlib>

#include "manifest/validate.h"
#include "util/bounded_read.h"

namespace kftrain::state {

std::string state_folder(const char* folder) {
    return state_root() + "/" + folder;
}

util::Status check_job_name(const std::string& name) {
    if (!manifest::is_dns1035_label(name)) {
        return util::error(
            fmt::format("job name: must be a lower-case DNS-1035 label (got {})", name), 2);
    }
    return util::ok_status();
}

std::string state_root() {
    const char* xdg = std::getenv("XDG_STATE_HOME");
    if (xdg != nullptr && *xdg == '/') {
        return std::string(xdg) + "/kftrain";
    }
    const char* home = std::getenv("HOME");
    std::string base = home != nullptr && *home != '\0' ? home : "/tmp";
    return base + "/.local/state/kftrain";
}

util::Result<std::string> read_state_file(const std::string& path) {
    return util::read_file(path, k_max_state_bytes);
}

}  // namespace kftrain::state
