#include "staging/tree_copy.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "job/exit_codes.h"
#include "staging/claim_path.h"
#include "util/fd/dir_beneath.h"
#include "util/signals/interrupt.h"
#include "util/text.h"

namespace kftrain::staging {
namespace {

constexpr int k_max_depth = 256;

util::Status read_error(const std::string& path) {
    return util::error(
        fmt::format("cannot read {}: {}", util::escape_controls(path), std::strerror(errno)),
        k_exit_cluster);
}

TarEntry entry_of(const std::string& name, const struct stat& st) {
    TarEntry entry;
    entry.name = name;
    entry.mode = static_cast<uint32_t>(st.st_mode & 07777);
    entry.modified = static_cast<int64_t>(st.st_mtime);
    if (S_ISREG(st.st_mode)) {
        entry.type = TarEntry::Type::file;
        entry.size = static_cast<uint64_t>(st.st_size);
    } else if (S_ISDIR(st.st_mode)) {
        entry.type = TarEntry::Type::directory;
    } else if (S_ISLNK(st.st_mode)) {
        entry.type = TarEntry::Type::symlink;
    } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
        entry.type = TarEntry::Type::device;
    } else if (S_ISFIFO(st.st_mode)) {
        entry.type = TarEntry::Type::fifo;
    } else {
        entry.type_flag = 's';  // a socket: tar has no type for one
    }
    return entry;
}

// The names in the open directory fd, sorted.
util::Result<std::vector<std::string>> names_in(util::UniqueFd fd, const std::string& path) {
    DIR* dir = ::fdopendir(fd.get());
    if (dir == nullptr) {
        return read_error(path).error_value();
    }
    fd.release();  // closedir closes it
    std::vector<std::string> names;
    while (const dirent* d = ::readdir(dir)) {
        std::string name = d->d_name;
        if (name != "." && name != "..") {
            names.push_back(std::move(name));
        }
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

util::Status send_file(int dir, const std::string& name, const std::string& path, TarSink& sink) {
    const util::UniqueFd fd(
        ::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (!fd) {
        return read_error(path);
    }
    char buffer[65536];
    util::Status status = util::ok_status();
    for (ssize_t n; status && (n = ::read(fd.get(), buffer, sizeof buffer)) != 0;) {
        if (util::interrupt_requested()) {  // a file of gigabytes stops within a read too
            return util::error("interrupted", k_exit_interrupted);
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        status = n < 0 ? read_error(path) : sink.content(buffer, static_cast<size_t>(n));
    }
    return status;
}

util::Status read_level(util::UniqueFd fd, const std::string& path, const std::string& prefix,
                        TarSink& sink, int depth);

util::Status send_member(int dir, const std::string& name, const std::string& path,
                         const std::string& member, TarSink& sink, int depth) {
    if (util::interrupt_requested()) {
        return util::error("interrupted", k_exit_interrupted);
    }
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return read_error(path);
    }
    TarEntry entry = entry_of(member, st);
    if (!sink.wants(entry)) {
        return util::ok_status();
    }
    if (S_ISLNK(st.st_mode)) {
        std::string target(4096, '\0');
        ssize_t n = ::readlinkat(dir, name.c_str(), target.data(), target.size());
        entry.link = n > 0 ? target.substr(0, static_cast<size_t>(n)) : "";
    }
    if (auto begun = sink.begin(entry); !begun) {
        return begun;
    }
    if (S_ISREG(st.st_mode)) {
        if (auto sent = send_file(dir, name, path, sink); !sent) {
            return sent;
        }
    }
    if (auto ended = sink.end(); !ended) {
        return ended;
    }
    if (!S_ISDIR(st.st_mode)) {
        return util::ok_status();
    }
    util::UniqueFd sub(
        ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub) {
        return read_error(path);
    }
    return read_level(std::move(sub), path, member + "/", sink, depth + 1);
}

// Send the members of the open directory fd, named prefix + name.
util::Status read_level(util::UniqueFd fd, const std::string& path, const std::string& prefix,
                        TarSink& sink, int depth) {
    if (depth > k_max_depth) {
        return util::error(fmt::format("{}: more than {} directories deep",
                                       util::escape_controls(path), k_max_depth),
                           k_exit_bad_input);
    }
    const util::UniqueFd dir(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
    auto names = names_in(std::move(fd), path);
    if (!names || !dir) {
        return names ? read_error(path) : util::Status(names.error_value());
    }
    util::Status status = util::ok_status();
    for (const auto& name : *names) {
        status = send_member(dir.get(), name, path + "/" + name, prefix + name, sink, depth);
        if (!status) {
            break;
        }
    }
    return status;
}

}  // namespace

util::Status TreeSink::begin(const TarEntry& entry) {
    m_plan = plan_member(entry, m_keep_symlinks);
    m_modified = entry.modified;
    m_writing = false;
    using Action = MemberPlan::Action;
    switch (m_plan.action) {
        case Action::ignore:
            return util::ok_status();
        case Action::skip: {
            std::string line = fmt::format("{}: {}", util::escape_controls(entry.name), m_plan.why);
            m_warn << "kftrain: warning: skipped " << line << "\n";
            m_report.skipped.push_back(std::move(line));
            return util::ok_status();
        }
        case Action::directory:
            return m_writer.make_directory(m_plan.path, m_plan.mode);
        case Action::symlink:
            return m_writer.make_symlink(m_plan.path, m_plan.link);
        case Action::hard_link:
            if (m_written.count(m_plan.link) == 0) {
                std::string line = fmt::format(
                    "{}: a hard link to {}, which the copy has not "
                    "written",
                    util::escape_controls(m_plan.path), util::escape_controls(m_plan.link));
                m_warn << "kftrain: warning: skipped " << line << "\n";
                m_report.skipped.push_back(std::move(line));
                return util::ok_status();
            }
            m_written.insert(m_plan.path);
            ++m_report.files;
            return m_writer.copy_file(m_plan.link, m_plan.path, m_plan.mode);
        case Action::file:
            m_writing = true;
            m_written.insert(m_plan.path);
            ++m_report.files;
            return m_writer.begin_file(m_plan.path, m_plan.mode);
    }
    return util::ok_status();
}

util::Status TreeSink::content(const char* data, size_t size) {
    if (!m_writing) {
        return util::ok_status();  // a skipped member's content
    }
    m_report.bytes += size;
    return m_writer.write(data, size);
}

util::Status TreeSink::end() {
    if (!m_writing) {
        return util::ok_status();
    }
    m_writing = false;
    return m_writer.end_file(m_modified);
}

std::string copied_line(const std::string& verb, const CopyReport& report, const std::string& from,
                        const std::string& to) {
    std::string skipped;
    if (!report.skipped.empty()) {
        skipped = fmt::format(
            " ({} left out: see the warnings above)",
            util::counted(static_cast<long long>(report.skipped.size()), "entry", "entries"));
    }
    return fmt::format("{}: {}, {} from {} to {}{}\n", verb,
                       util::counted(static_cast<long long>(report.files), "file"),
                       format_bytes(report.bytes), util::escape_controls(from),
                       util::escape_controls(to), skipped);
}

util::Status read_tree(const std::string& dir, TarSink& sink) {
    util::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) {
        return read_error(dir);
    }
    return read_tree(std::move(fd), dir, sink);
}

util::Status read_tree(util::UniqueFd dir, const std::string& shown, TarSink& sink) {
    return read_level(std::move(dir), shown, "", sink, 0);
}

util::Result<ClaimDir> claim_directory(const std::string& root, const std::string& claim_path,
                                       const std::string& claim, bool create) {
    if (create) {
        std::error_code ec;
        std::filesystem::create_directories(root, ec);  // the claim's own directory: put makes it
    }
    const util::UniqueFd top(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!top) {
        return util::error(fmt::format("claim {}: its directory {} on this machine: {}", claim,
                                       root, std::strerror(errno)),
                           errno == ENOENT ? k_exit_not_found : k_exit_cluster);
    }
    auto walk = util::open_dir_beneath(top.get(), claim_path, create);
    if (walk.fd) {
        return ClaimDir{local_claim_path(root, claim_path), std::move(walk.fd)};
    }
    const std::string walked = "/" + walk.stop.walked;
    if (walk.stop.error == ENOENT) {
        return util::error(fmt::format("--path: {} not found in claim {} on this machine "
                                       "(no directory {}{})",
                                       claim_path, claim, root, walked),
                           k_exit_not_found);
    }
    return util::error(fmt::format("--path: {} in claim {} is a symlink or a file, not a "
                                   "directory: kftrain never follows a link inside a claim",
                                   walked, claim),
                       k_exit_bad_input);
}

std::vector<std::string> existing_paths(const Listing& listing, const std::string& out_dir) {
    std::vector<std::string> found;
    for (const auto& entry : listing.entries) {
        struct stat st {};
        if (::lstat((out_dir + "/" + entry.path).c_str(), &st) != 0) {
            continue;
        }
        if ((entry.type == "file" && !S_ISDIR(st.st_mode)) ||
            (entry.type == "directory" && !S_ISDIR(st.st_mode))) {
            found.push_back(entry.path);
        }
    }
    return found;
}

util::Error would_replace(const std::vector<std::string>& paths, const std::string& out_dir) {
    std::string named;
    for (size_t i = 0; i < paths.size() && i < 3; ++i) {
        named += (i == 0 ? "" : ", ") + util::escape_controls(paths[i]);
    }
    if (paths.size() > 3) {
        named += fmt::format(" and {} more", paths.size() - 3);
    }
    return util::error(
        fmt::format("OUT_DIR: {} would replace what is already in {} ({}): give "
                    "--force to replace files, or copy into another directory",
                    util::counted(static_cast<long long>(paths.size()), "path"), out_dir, named),
        k_exit_bad_input);
}

}  // namespace kftrain::staging
