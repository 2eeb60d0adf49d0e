#include "trainer/data/file_bytes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kftrain::trainer::data {
namespace fs = std::filesystem;

namespace {

util::Error errno_error(const std::string& what, const std::string& path) {
    return util::Error{fmt::format("{} {}: {}", what, path, std::strerror(errno))};
}

util::Status write_all(int fd, const std::string& bytes, const std::string& path) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return errno_error("cannot write", path);
        }
        done += static_cast<std::size_t>(n);
    }
    return util::Unit{};
}

void fsync_dir(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

util::Result<std::string> read_gz(const std::string& path) {
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) {
        return util::Error{fmt::format("{}: cannot open", path)};
    }
    std::string out;
    char buffer[1 << 16];
    int n = 0;
    while ((n = gzread(file, buffer, sizeof buffer)) > 0) {
        out.append(buffer, static_cast<std::size_t>(n));
    }
    int errnum = 0;
    const char* message = gzerror(file, &errnum);
    const bool failed = n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END);
    const std::string error_text = failed ? message : "";
    gzclose(file);
    if (failed) {
        return util::Error{fmt::format("{}: corrupt gzip data ({})", path, error_text)};
    }
    return out;
}

}  // namespace

util::Result<std::string> read_file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return util::Error{fmt::format("{}: cannot open", path)};
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

util::Result<FileBytes> read_maybe_gz(const std::string& path) {
    if (fs::exists(path)) {
        auto bytes = read_file_bytes(path);
        if (!bytes.ok()) {
            return util::Error{bytes.error()};
        }
        return FileBytes{path, std::move(*bytes)};
    }
    const auto gz = path + ".gz";
    if (fs::exists(gz)) {
        auto bytes = read_gz(gz);
        if (!bytes.ok()) {
            return util::Error{bytes.error()};
        }
        return FileBytes{gz, std::move(*bytes)};
    }
    return util::Error{fmt::format("{}: not found (nor {}.gz)", path, path)};
}

util::Status write_file_atomic(const std::string& path, const std::string& bytes) {
    const fs::path target(path);
    const auto dir = target.has_parent_path() ? target.parent_path().string() : ".";
    const auto tmp = fmt::format("{}.tmp.{}", path, ::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return errno_error("cannot create", tmp);
    }
    auto written = write_all(fd, bytes, tmp);
    if (written.ok() && ::fsync(fd) != 0) {
        written = errno_error("cannot fsync", tmp);
    }
    ::close(fd);
    if (!written.ok()) {
        ::unlink(tmp.c_str());
        return written;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        auto err = errno_error("cannot rename to", path);
        ::unlink(tmp.c_str());
        return err;
    }
    fsync_dir(dir);
    return util::Unit{};
}

}  // namespace kftrain::trainer::data
