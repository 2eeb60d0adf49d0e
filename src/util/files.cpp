#include "util/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kftrain::util {
namespace fs = std::filesystem;

util::Status make_private_dir(const std::string& path) {
    fs::path parent = fs::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && parent != fs::path(path) && !fs::is_directory(parent, ec)) {
        auto made = make_private_dir(parent.string());
        if (!made) {
            return made;
        }
    }
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
        return util::error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
    }
    return util::ok_status();
}

util::Status write_fd(int fd, const std::string& text, const std::string& path) {
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return util::error(
                fmt::format("cannot write {}: {}", path, std::strerror(n < 0 ? errno : ENOSPC)));
        }
        done += static_cast<size_t>(n);
    }
    return util::ok_status();
}

namespace {

util::Status fail(const std::string& path, const std::string& tmp, int fd) {
    int saved = errno;
    if (fd >= 0) {
        ::close(fd);
    }
    ::unlink(tmp.c_str());
    return util::error(fmt::format("cannot write {}: {}", path, std::strerror(saved)));
}

// Make a rename durable: fsync the directory that holds path.
void sync_parent(const std::string& path) {
    int dir = ::open(fs::path(path).parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

}  // namespace

util::Status write_file_atomic(const std::string& path, const std::string& text) {
    std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        return fail(path, tmp, fd);
    }
    auto written = write_fd(fd, text, path);
    if (!written) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return written;
    }
    if (::fsync(fd) != 0) {
        return fail(path, tmp, fd);
    }
    if (::close(fd) != 0) {
        return fail(path, tmp, -1);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        return fail(path, tmp, -1);
    }
    sync_parent(path);
    return util::ok_status();
}

util::Status reserve_file(const std::string& path, size_t size) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        return util::error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    // Written, not only fallocate()d: every file system then holds the blocks.
    auto written = write_fd(fd, std::string(size, ' '), path);
    if (written && ::fsync(fd) != 0) {
        written = util::error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    ::close(fd);
    return written;
}

util::Status write_in_place(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return util::error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    struct stat info {};
    ::fstat(fd, &info);
    if (text.size() > static_cast<size_t>(info.st_size)) {
        ::close(fd);
        return util::error(fmt::format("cannot write {}: {} bytes do not fit the {} reserved", path,
                                       text.size(), info.st_size));
    }
    auto written = write_fd(fd, text + std::string(info.st_size - text.size(), ' '), path);
    ::fsync(fd);
    ::close(fd);
    return written;
}

}  // namespace kftrain::util
