#include "cli/local/state_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "manifest/validate.h"

namespace kftrain::cli::local {
namespace fs = std::filesystem;

util::Status check_job_name(const std::string& name) {
    if (!manifest::is_dns1035_label(name)) {
        return util::error(
            fmt::format("job name: must be a lower-case DNS-1035 label (got {})", name), 2);
    }
    return util::ok_status();
}

std::string jobs_root() {
    const char* xdg = std::getenv("XDG_STATE_HOME");
    if (xdg != nullptr && *xdg == '/') {
        return std::string(xdg) + "/kftrain/jobs";
    }
    const char* home = std::getenv("HOME");
    std::string base = home != nullptr && *home != '\0' ? home : "/tmp";
    return base + "/.local/state/kftrain/jobs";
}

std::string job_dir(const std::string& name) {
    return jobs_root() + "/" + name;
}

std::string state_path(const std::string& name) {
    return job_dir(name) + "/state.json";
}

std::string logs_dir(const std::string& name) {
    return job_dir(name) + "/logs";
}

std::string combined_log_path(const std::string& name) {
    return logs_dir(name) + "/all.log";
}

std::vector<std::string> job_names() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(jobs_root(), ec)) {
        if (entry.is_directory(ec) && fs::exists(entry.path() / "state.json", ec)) {
            names.push_back(entry.path().filename().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

util::Status write_file_atomic(const std::string& path, const std::string& text) {
    std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return util::error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
    }
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            ::close(fd);
            ::unlink(tmp.c_str());
            return util::error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return util::error(fmt::format("cannot rename {}: {}", tmp, std::strerror(errno)));
    }
    return util::ok_status();
}

util::Result<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return util::error(fmt::format("cannot read {}", path));
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace kftrain::cli::local
