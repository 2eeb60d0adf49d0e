#include "job/data/tree_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "job/exit_codes.h"
#include "util/text.h"

namespace kftrain::job::data {
namespace {

class Fd {
  public:
    explicit Fd(int fd = -1) : m_fd(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    int get() const { return m_fd; }
    void reset(int fd) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = fd;
    }
    int release() {
        int fd = m_fd;
        m_fd = -1;
        return fd;
    }

  private:
    int m_fd;
};

util::Status write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return util::error(std::strerror(errno));
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return util::ok_status();
}

}  // namespace

util::Result<TreeWriter> TreeWriter::open(const std::string& root, bool replace_files) {
    int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return util::error(fmt::format("cannot open {}: {}", root, std::strerror(errno)),
                           k_exit_cluster);
    }
    return TreeWriter(root, fd, replace_files);
}

TreeWriter::TreeWriter(TreeWriter&& other) noexcept
    : m_root(std::move(other.m_root)),
      m_root_fd(other.m_root_fd),
      m_replace(other.m_replace),
      m_file(other.m_file),
      m_file_path(std::move(other.m_file_path)) {
    other.m_root_fd = -1;
    other.m_file = -1;
}

TreeWriter::~TreeWriter() {
    if (m_file >= 0) {
        ::close(m_file);
    }
    if (m_root_fd >= 0) {
        ::close(m_root_fd);
    }
}

std::string TreeWriter::shown(const std::string& path) const {
    return util::escape_controls(m_root + (!m_root.empty() && m_root.back() == '/' ? "" : "/") +
                                 path);
}

// Walk path's parents from the root, making the missing ones; each part must be a directory
// itself, not a symlink to one.
util::Result<int> TreeWriter::open_parent(const std::string& path, std::string& leaf) {
    Fd dir(::dup(m_root_fd));
    size_t start = 0;
    for (size_t slash; (slash = path.find('/', start)) != std::string::npos; start = slash + 1) {
        const std::string part = path.substr(start, slash - start);
        int next =
            ::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT) {
            if (::mkdirat(dir.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
                return util::error(fmt::format("cannot create {}: {}", shown(path.substr(0, slash)),
                                               std::strerror(errno)),
                                   k_exit_cluster);
            }
            next =
                ::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0) {
            const bool link = errno == ELOOP || errno == ENOTDIR;
            return util::error(
                link ? fmt::format("{} is a symlink or a file where a directory goes: kftrain "
                                   "never writes through one (remove it, or copy elsewhere)",
                                   shown(path.substr(0, slash)))
                     : fmt::format("cannot open {}: {}", shown(path.substr(0, slash)),
                                   std::strerror(errno)),
                k_exit_bad_input);
        }
        dir.reset(next);
    }
    leaf = path.substr(start);
    return dir.release();
}

util::Status TreeWriter::make_directory(const std::string& path, uint32_t mode) {
    std::string leaf;
    auto parent = open_parent(path, leaf);
    if (!parent) {
        return util::Status(parent.error_value());
    }
    Fd dir(*parent);
    if (::mkdirat(dir.get(), leaf.c_str(), (mode & 0777) | 0700) == 0) {
        return util::ok_status();
    }
    struct stat st {};
    if (errno == EEXIST && ::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISDIR(st.st_mode)) {
        return util::ok_status();
    }
    if (errno == EEXIST) {
        return util::error(fmt::format("{} is a symlink or a file where a directory goes: kftrain "
                                       "never writes through one (remove it, or copy elsewhere)",
                                       shown(path)),
                           k_exit_bad_input);
    }
    return util::error(fmt::format("cannot create {}: {}", shown(path), std::strerror(errno)),
                       k_exit_cluster);
}

// Make room for a new file at leaf: nothing there, or (when replacing) a file or symlink
// removed; a directory there is always an error.
util::Status TreeWriter::clear_for_file(int dir, const std::string& leaf, const std::string& path) {
    struct stat st {};
    if (::fstatat(dir, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return util::ok_status();
    }
    if (S_ISDIR(st.st_mode)) {
        return util::error(
            fmt::format("{} is a directory where the copy has a file: remove it, or copy elsewhere",
                        shown(path)),
            k_exit_bad_input);
    }
    if (!m_replace) {
        return util::error(
            fmt::format("{} exists: give --force to replace existing files", shown(path)),
            k_exit_bad_input);
    }
    if (::unlinkat(dir, leaf.c_str(), 0) != 0) {
        return util::error(fmt::format("cannot replace {}: {}", shown(path), std::strerror(errno)),
                           k_exit_cluster);
    }
    return util::ok_status();
}

// The directory to make path's last part in, opened, with room made there (clear_for_file).
util::Result<int> TreeWriter::open_room(const std::string& path, std::string& leaf) {
    auto parent = open_parent(path, leaf);
    if (!parent) {
        return parent;
    }
    if (auto cleared = clear_for_file(*parent, leaf, path); !cleared) {
        ::close(*parent);
        return cleared.error_value();
    }
    return parent;
}

util::Status TreeWriter::create_file(const std::string& path, uint32_t mode) {
    std::string leaf;
    auto room = open_room(path, leaf);
    if (!room) {
        return util::Status(room.error_value());
    }
    Fd dir(*room);
    m_file = ::openat(dir.get(), leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      mode & 0777);
    if (m_file < 0) {
        return util::error(fmt::format("cannot create {}: {}", shown(path), std::strerror(errno)),
                           errno == EEXIST ? k_exit_bad_input : k_exit_cluster);
    }
    m_file_path = path;
    return util::ok_status();
}

util::Status TreeWriter::begin_file(const std::string& path, uint32_t mode) {
    if (m_file >= 0) {
        return util::error("begin_file: the previous file is still open");
    }
    return create_file(path, mode);
}

util::Status TreeWriter::write(const char* data, size_t size) {
    if (auto written = write_all(m_file, data, size); !written) {
        return util::error(fmt::format("cannot write {}: {}", shown(m_file_path), written.error()),
                           k_exit_cluster);
    }
    return util::ok_status();
}

util::Status TreeWriter::end_file(int64_t modified) {
    const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(modified), 0}};
    ::futimens(m_file, times);
    const int closed = ::close(m_file);
    m_file = -1;
    if (closed != 0) {
        return util::error(
            fmt::format("cannot write {}: {}", shown(m_file_path), std::strerror(errno)),
            k_exit_cluster);
    }
    return util::ok_status();
}

util::Status TreeWriter::copy_file(const std::string& from, const std::string& path,
                                   uint32_t mode) {
    std::string leaf;
    auto parent = open_parent(from, leaf);
    if (!parent) {
        return util::Status(parent.error_value());
    }
    Fd dir(*parent);
    Fd source(::openat(dir.get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (source.get() < 0 || ::fstat(source.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return util::error(fmt::format("cannot copy {} to {}: not a file the copy wrote",
                                       shown(from), shown(path)),
                           k_exit_cluster);
    }
    if (auto created = create_file(path, mode); !created) {
        return created;
    }
    char buffer[65536];
    for (ssize_t n; (n = ::read(source.get(), buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return util::error(fmt::format("cannot read {}: {}", shown(from), std::strerror(errno)),
                               k_exit_cluster);
        }
        if (auto written = write(buffer, static_cast<size_t>(n)); !written) {
            return written;
        }
    }
    return end_file(static_cast<int64_t>(st.st_mtime));
}

util::Status TreeWriter::make_symlink(const std::string& path, const std::string& target) {
    std::string leaf;
    auto room = open_room(path, leaf);
    if (!room) {
        return util::Status(room.error_value());
    }
    Fd dir(*room);
    if (::symlinkat(target.c_str(), dir.get(), leaf.c_str()) != 0) {
        return util::error(fmt::format("cannot create {}: {}", shown(path), std::strerror(errno)),
                           k_exit_cluster);
    }
    return util::ok_status();
}

}  // namespace kftrain::job::data
