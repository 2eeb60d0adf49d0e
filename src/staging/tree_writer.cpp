#include "staging/tree_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "job/exit_codes.h"
#include "util/fd/dir_beneath.h"
#include "util/files.h"
#include "util/text.h"

namespace kftrain::staging {

util::Result<TreeWriter> TreeWriter::open(const std::string& root, bool replace_files) {
    util::UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) {
        return util::error(fmt::format("cannot open {}: {}", root, std::strerror(errno)),
                           k_exit_cluster);
    }
    return TreeWriter(root, std::move(fd), replace_files);
}

TreeWriter TreeWriter::beneath(util::UniqueFd root_fd, std::string root, bool replace_files) {
    return TreeWriter(std::move(root), std::move(root_fd), replace_files);
}

std::string TreeWriter::shown(const std::string& path) const {
    return util::escape_controls(m_root + (!m_root.empty() && m_root.back() == '/' ? "" : "/") +
                                 path);
}

// Walk path's parents from the root, making the missing ones; each part must be a directory
// itself, not a symlink to one.
util::Result<util::UniqueFd> TreeWriter::open_parent(const std::string& path, std::string& leaf) {
    const size_t slash = path.rfind('/');
    leaf = slash == std::string::npos ? path : path.substr(slash + 1);
    auto walk = util::open_dir_beneath(
        m_root_fd.get(), slash == std::string::npos ? "" : path.substr(0, slash), true);
    if (walk.fd) {
        return std::move(walk.fd);
    }
    const util::BeneathStop& stop = walk.stop;
    if (stop.making) {
        return util::error(
            fmt::format("cannot create {}: {}", shown(stop.walked), std::strerror(stop.error)),
            k_exit_cluster);
    }
    return util::error(
        stop.not_a_directory()
            ? fmt::format("{} is a symlink or a file where a directory goes: kftrain never "
                          "writes through one (remove it, or copy elsewhere)",
                          shown(stop.walked))
            : fmt::format("cannot open {}: {}", shown(stop.walked), std::strerror(stop.error)),
        k_exit_bad_input);
}

util::Status TreeWriter::make_directory(const std::string& path, uint32_t mode) {
    std::string leaf;
    auto parent = open_parent(path, leaf);
    if (!parent) {
        return util::Status(parent.error_value());
    }
    const util::UniqueFd dir = std::move(*parent);
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
util::Result<util::UniqueFd> TreeWriter::open_room(const std::string& path, std::string& leaf) {
    auto parent = open_parent(path, leaf);
    if (!parent) {
        return parent;
    }
    if (auto cleared = clear_for_file(parent->get(), leaf, path); !cleared) {
        return cleared.error_value();
    }
    return parent;
}

namespace {

// The file's content goes to a name of its own beside it, renamed to the file's when whole:
// a copy cut short leaves no file that looks complete under the name. (A long name is cut to
// stay within NAME_MAX; one file is written at a time.)
std::string partial_name(const std::string& leaf) {
    return "." + leaf.substr(0, 200) + ".kftrain-partial";
}

}  // namespace

util::Status TreeWriter::create_file(const std::string& path, uint32_t mode) {
    std::string leaf;
    auto room = open_room(path, leaf);
    if (!room) {
        return util::Status(room.error_value());
    }
    util::UniqueFd dir = std::move(*room);
    const std::string partial = partial_name(leaf);
    ::unlinkat(dir.get(), partial.c_str(), 0);  // one an earlier copy cut short left
    m_file.reset(::openat(dir.get(), partial.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777));
    if (!m_file) {
        return util::error(fmt::format("cannot create {}: {}", shown(path), std::strerror(errno)),
                           errno == EEXIST ? k_exit_bad_input : k_exit_cluster);
    }
    m_file_dir = std::move(dir);
    m_file_leaf = leaf;
    m_file_path = path;
    return util::ok_status();
}

TreeWriter::~TreeWriter() {
    abandon_file();
}

void TreeWriter::abandon_file() {
    if (m_file) {
        m_file.reset();
        ::unlinkat(m_file_dir.get(), partial_name(m_file_leaf).c_str(), 0);
    }
    m_file_dir.reset();
}

util::Status TreeWriter::begin_file(const std::string& path, uint32_t mode) {
    if (m_file) {
        return util::error("begin_file: the previous file is still open");
    }
    return create_file(path, mode);
}

util::Status TreeWriter::write(const char* data, size_t size) {
    // A block of zeros is a hole: skipped, so a sparse file stays sparse (end_file sets the
    // size a trailing hole leaves short).
    if (size > 0 && data[0] == 0 && std::memcmp(data, data + 1, size - 1) == 0) {
        if (::lseek(m_file.get(), static_cast<off_t>(size), SEEK_CUR) < 0) {
            return util::error(
                fmt::format("cannot write {}: {}", shown(m_file_path), std::strerror(errno)),
                k_exit_cluster);
        }
        return util::ok_status();
    }
    if (auto written =
            util::write_all(m_file.get(), std::string_view(data, size), shown(m_file_path));
        !written) {
        return util::error(written.error(), k_exit_cluster);
    }
    return util::ok_status();
}

util::Status TreeWriter::end_file(int64_t modified) {
    const off_t size = ::lseek(m_file.get(), 0, SEEK_CUR);
    const bool sized = size >= 0 && ::ftruncate(m_file.get(), size) == 0;
    const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(modified), 0}};
    ::futimens(m_file.get(), times);
    const std::string partial = partial_name(m_file_leaf);
    if (!sized || !m_file.close_checked() ||
        ::renameat(m_file_dir.get(), partial.c_str(), m_file_dir.get(), m_file_leaf.c_str()) != 0) {
        const int err = errno;
        m_file.reset();
        ::unlinkat(m_file_dir.get(), partial.c_str(), 0);
        m_file_dir.reset();
        return util::error(
            fmt::format("cannot write {}: {}", shown(m_file_path), std::strerror(err)),
            k_exit_cluster);
    }
    m_file_dir.reset();
    return util::ok_status();
}

util::Status TreeWriter::copy_file(const std::string& from, const std::string& path,
                                   uint32_t mode) {
    std::string leaf;
    auto parent = open_parent(from, leaf);
    if (!parent) {
        return util::Status(parent.error_value());
    }
    const util::UniqueFd dir = std::move(*parent);
    const util::UniqueFd source(
        ::openat(dir.get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
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
    const util::UniqueFd dir = std::move(*room);
    if (::symlinkat(target.c_str(), dir.get(), leaf.c_str()) != 0) {
        return util::error(fmt::format("cannot create {}: {}", shown(path), std::strerror(errno)),
                           k_exit_cluster);
    }
    return util::ok_status();
}

}  // namespace kftrain::staging
