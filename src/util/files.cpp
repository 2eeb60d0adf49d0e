#include "util/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/fd/unique_fd.h"

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

util::Status write_all(int fd, std::string_view text, const std::string& path) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return util::error(
                fmt::format("cannot write {}: {}", path, std::strerror(n < 0 ? errno : ENOSPC)));
        }
        text.remove_prefix(static_cast<size_t>(n));
    }
    return util::ok_status();
}

namespace {

util::Status fail(const std::string& path, const std::string& tmp) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    return util::error(fmt::format("cannot write {}: {}", path, std::strerror(saved)));
}

// Make a rename durable: fsync the directory that holds path ("." for a bare name).
void sync_parent(const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    UniqueFd dir(::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir) {
        ::fsync(dir.get());
    }
}

}  // namespace

namespace {

// Write text to tmp (created with mode) and make it durable: the first half of both atomic
// writers. On failure tmp is gone and the error names path.
util::Status write_durable(const std::string& path, const std::string& tmp, std::string_view text,
                           mode_t mode) {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
    if (!fd) {
        return fail(path, tmp);
    }
    if (auto written = write_all(fd.get(), text, path); !written) {
        fd.reset();
        ::unlink(tmp.c_str());
        return written;
    }
    if (::fsync(fd.get()) != 0 || !fd.close_checked()) {
        return fail(path, tmp);
    }
    return util::ok_status();
}

}  // namespace

util::Status write_file_atomic(const std::string& path, std::string_view text, mode_t mode) {
    const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
    if (auto written = write_durable(path, tmp, text, mode); !written) {
        return written;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        return fail(path, tmp);
    }
    sync_parent(path);
    return util::ok_status();
}

util::Result<bool> write_file_once(const std::string& path, std::string_view text, mode_t mode) {
    // Its own temporary name per call: threads of one process may write the same file at once.
    static std::atomic<unsigned> calls{0};
    const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), calls++);
    if (auto written = write_durable(path, tmp, text, mode); !written) {
        return written.error_value();
    }
    // link() never replaces: of two writers, the second finds the first's file in place.
    const bool linked = ::link(tmp.c_str(), path.c_str()) == 0;
    if (!linked && errno != EEXIST) {
        return fail(path, tmp).error_value();
    }
    ::unlink(tmp.c_str());
    if (linked) {
        sync_parent(path);
    }
    return linked;
}

util::Status reserve_file(const std::string& path, size_t size) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd) {
        return util::error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    // Written, not only fallocate()d: every file system then holds the blocks.
    auto written = write_all(fd.get(), std::string(size, ' '), path);
    if (written && ::fsync(fd.get()) != 0) {
        written = util::error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    return written;
}

util::Status write_in_place(const std::string& path, const std::string& text) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd) {
        return util::error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    struct stat info {};
    ::fstat(fd.get(), &info);
    if (text.size() > static_cast<size_t>(info.st_size)) {
        return util::error(fmt::format("cannot write {}: {} bytes do not fit the {} reserved", path,
                                       text.size(), info.st_size));
    }
    auto written = write_all(fd.get(), text + std::string(info.st_size - text.size(), ' '), path);
    ::fsync(fd.get());
    return written;
}

}  // namespace kftrain::util
