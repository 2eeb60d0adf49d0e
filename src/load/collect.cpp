#include "load/collect.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "job/exit_codes.h"
#include "staging/tree_copy.h"
#include "util/bounded_read.h"
#include "util/fd/dir_beneath.h"
#include "util/fd/unique_fd.h"
#include "util/text.h"

namespace kftrain::load {
namespace {

using manifest::CodeFile;

constexpr const char* k_ignore_file = ".kftrainignore";

util::Error bad(const std::string& message) {
    return util::error(message, k_exit_bad_input);
}

// Return "a/b" + "../c" resolved without the file system; "" when it leaves the folder.
std::string resolve_inside(const std::string& member, const std::string& target) {
    if (target.empty() || target.front() == '/') {
        return "";
    }
    std::vector<std::string> parts = util::split(member, '/');
    parts.pop_back();  // the link's own name
    for (const auto& part : util::split(target, '/')) {
        if (part.empty() || part == ".") {
            continue;
        }
        if (part == "..") {
            if (parts.empty()) {
                return "";
            }
            parts.pop_back();
        } else {
            parts.push_back(part);
        }
    }
    std::string out;
    for (const auto& part : parts) {
        out += (out.empty() ? "" : "/") + part;
    }
    return out;
}

// Takes what read_tree hands it: files into the bundle, links kept to resolve at the end.
class CodeSink : public staging::TarSink {
  public:
    CodeSink(std::vector<std::string> patterns, int dir, std::string folder, std::ostream& warn)
        : m_patterns(std::move(patterns)), m_dir(dir), m_folder(std::move(folder)), m_warn(warn) {}

    bool wants(const staging::TarEntry& entry) override {
        const bool dir = entry.type == staging::TarEntry::Type::directory;
        if (manifest::code_excluded(entry.name, dir, m_patterns)) {
            return false;
        }
        // A virtualenv, whatever its name (it holds pyvenv.cfg): the image brings the packages.
        const std::string marker = entry.name + "/pyvenv.cfg";
        return !(dir && ::faccessat(m_dir, marker.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0);
    }

    util::Status begin(const staging::TarEntry& entry) override {
        using Type = staging::TarEntry::Type;
        m_current = nullptr;
        if (std::string problem = manifest::code_path_problem(entry.name); !problem.empty()) {
            return bad(
                fmt::format("code.path: {} in {} {}: rename it, or leave it out with "
                            "code.exclude or .kftrainignore",
                            util::escape_line(entry.name), shown(), problem));
        }
        switch (entry.type) {
            case Type::file:
                if (m_files.size() >= manifest::k_max_code_files) {
                    return bad(
                        fmt::format("code.path: {} holds more than {} files: leave some "
                                    "out with code.exclude or .kftrainignore",
                                    shown(), manifest::k_max_code_files));
                }
                m_files.push_back({entry.name, (entry.mode & 0111) != 0, ""});
                m_current = &m_files.back();
                return util::ok_status();
            case Type::symlink:
                m_links.emplace_back(entry.name, entry.link);
                return util::ok_status();
            case Type::directory:
                return util::ok_status();
            default:
                m_warn << "kftrain: warning: code: skipped " << util::escape_line(entry.name)
                       << ": not a file or folder (a FIFO, device or socket)\n";
                return util::ok_status();
        }
    }

    util::Status content(const char* data, size_t size) override {
        if (m_current != nullptr) {
            if (m_bytes + size > 8 * manifest::k_max_code_bytes) {
                return bad(
                    fmt::format("code.path: {} holds more than {} MiB of files; a "
                                "ConfigMap holds 1 MiB (docs/code.md)",
                                shown(), 8 * manifest::k_max_code_bytes >> 20));
            }
            m_bytes += size;
            m_current->content.append(data, size);
        }
        return util::ok_status();
    }

    util::Status end() override {
        m_current = nullptr;
        return util::ok_status();
    }

    // Add each link to a file of the folder as a copy of it; refuse one leading out.
    util::Result<std::vector<CodeFile>> finish() {
        std::map<std::string, const CodeFile*> by_path;
        for (const auto& file : m_files) {
            by_path[file.path] = &file;
        }
        std::vector<CodeFile> linked;
        for (const auto& [name, target] : m_links) {
            const std::string inside = resolve_inside(name, target);
            if (inside.empty()) {
                return bad(
                    fmt::format("code.path: {} in {} is a link leading out of the folder "
                                "(to {}): copy what it points to into the folder, or "
                                "leave it out with code.exclude",
                                util::escape_line(name), shown(), util::escape_line(target)));
            }
            auto found = by_path.find(inside);
            if (found == by_path.end()) {
                m_warn << "kftrain: warning: code: skipped " << util::escape_line(name)
                       << ": a link to " << util::escape_line(target)
                       << ", which is not a file the job ships\n";
                continue;
            }
            linked.push_back({name, found->second->executable, found->second->content});
        }
        std::vector<CodeFile> files = std::move(m_files);
        files.insert(files.end(), linked.begin(), linked.end());
        std::sort(files.begin(), files.end(),
                  [](const CodeFile& a, const CodeFile& b) { return a.path < b.path; });
        return files;
    }

  private:
    std::string shown() const { return util::escape_line(m_folder); }

    std::vector<std::string> m_patterns;
    int m_dir;  // the folder, open
    std::string m_folder;
    std::ostream& m_warn;
    std::vector<CodeFile> m_files;
    CodeFile* m_current = nullptr;  // the file whose content comes: the last of m_files
    uint64_t m_bytes = 0;
    std::vector<std::pair<std::string, std::string>> m_links;
};

// Read the folder's .kftrainignore: one pattern a line, # comments and blank lines skipped.
// Opened without blocking, and read only when it is a regular file: a FIFO of that name (or a
// device, a socket, a folder) is skipped with a warning, never waited on for a writer.
util::Result<std::vector<std::string>> ignore_patterns(int dir, const std::string& folder,
                                                       std::ostream& warn) {
    const std::string path = folder + "/" + k_ignore_file;
    const util::UniqueFd fd(
        ::openat(dir, k_ignore_file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd && errno == ENOENT) {
        return std::vector<std::string>{};
    }
    struct stat info {};
    if (fd && ::fstat(fd.get(), &info) == 0 && !S_ISREG(info.st_mode)) {
        warn << "kftrain: warning: code: skipped " << util::escape_line(path)
             << ": not a regular file (a FIFO, device, socket or folder); no patterns read "
                "from it\n";
        return std::vector<std::string>{};
    }
    constexpr size_t k_max_ignore_bytes = 64 * 1024;
    auto text = fd ? util::read_stream(fd.get(), k_max_ignore_bytes, util::k_read_idle_limit)
                   : util::Result<std::string>(util::error(std::strerror(errno)));
    if (!text || text->size() > k_max_ignore_bytes) {
        return bad(fmt::format("code: {}: {}", util::escape_line(path),
                               text ? "larger than 64 KiB" : text.error()));
    }
    std::vector<std::string> patterns;
    const auto lines = util::split_lines(*text);
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string line = util::trim(lines[i]);
        if (line.empty() || line.front() == '#') {
            continue;
        }
        if (std::string problem = manifest::code_pattern_problem(line); !problem.empty()) {
            return bad(fmt::format("{}:{}: {} (got {})", util::escape_line(path), i + 1, problem,
                                   util::escape_line(util::excerpt(line, 80))));
        }
        patterns.push_back(line);
    }
    return patterns;
}

}  // namespace

std::string code_folder(const manifest::JobSpec& spec, bool no_file) {
    const std::string& path = spec.code.path;
    if (path.empty() || path.front() == '/' || no_file) {
        return path;
    }
    const std::string& file = spec.source.file;
    const size_t slash = file.rfind('/');
    return slash == std::string::npos ? path : file.substr(0, slash + 1) + path;
}

std::string code_hash(const std::vector<CodeFile>& files) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
    for (const auto& file : files) {
        const std::string head = fmt::format("{}\n{}\n{}\n", file.path,
                                             file.executable ? "755" : "644", file.content.size());
        EVP_DigestUpdate(ctx.get(), head.data(), head.size());
        EVP_DigestUpdate(ctx.get(), file.content.data(), file.content.size());
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx.get(), digest, &length);
    std::string hex;
    for (unsigned int i = 0; i < 5 && i < length; ++i) {
        hex += fmt::format("{:02x}", digest[i]);
    }
    return hex;
}

util::Result<util::UniqueFd> open_code_folder(const std::string& folder, const std::string& root) {
    if (root.empty()) {
        util::UniqueFd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!dir) {
            return bad(fmt::format("code.path: {}: {}", util::escape_line(folder),
                                   errno == ENOTDIR ? "not a folder" : std::strerror(errno)));
        }
        return dir;
    }
    const util::UniqueFd top(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    std::string relative = folder;
    const std::string inside = root == "/" ? root : root + "/";
    if (!relative.empty() && relative.front() == '/') {
        if (relative != root && relative.rfind(inside, 0) != 0) {
            relative = "..";  // refused below
        } else {
            relative.erase(0, std::min(relative.size(), inside.size()));
        }
    }
    auto walk = top ? util::open_dir_beneath(top.get(), relative, false) : util::DirBeneath{};
    if (!walk.fd) {
        return bad(
            fmt::format("code.path: {} is not a folder inside the server's root {} "
                        "(links are not followed, \"..\" is not allowed)",
                        util::escape_line(folder), util::escape_line(root)));
    }
    return std::move(walk.fd);
}

util::Result<manifest::CodeBundle> collect_code(util::UniqueFd dir, const std::string& folder,
                                                const std::vector<std::string>& exclude,
                                                std::ostream& warn) {
    auto ignored = ignore_patterns(dir.get(), folder, warn);
    if (!ignored) {
        return ignored.error_value();
    }
    std::vector<std::string> patterns = manifest::default_code_excludes();
    patterns.insert(patterns.end(), exclude.begin(), exclude.end());
    patterns.insert(patterns.end(), ignored->begin(), ignored->end());
    util::UniqueFd walked(::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0));
    CodeSink sink(std::move(patterns), dir.get(), folder, warn);
    if (auto read = staging::read_tree(std::move(walked), folder, sink); !read) {
        return read.error_value();
    }
    auto files = sink.finish();
    if (!files) {
        return files.error_value();
    }
    manifest::CodeBundle bundle;
    bundle.folder = folder;
    bundle.files = std::move(*files);
    bundle.hash = code_hash(bundle.files);
    if (auto size = manifest::check_code_size(bundle); !size) {
        return size.error_value();
    }
    return bundle;
}

}  // namespace kftrain::load
