#include "load/collect.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
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
constexpr const char* k_git_ignore_file = ".gitignore";

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

// Read the ignore file name in the open folder dir (path in messages): one pattern a line, #
// comments and blank lines skipped; none when there is no such file. Opened without blocking
// and read only when it is a regular file: a FIFO of that name (or a device, a socket, a
// folder) is skipped with a warning, never waited on for a writer. strict (.kftrainignore): a
// line that cannot be used, or a file past 64 KiB, is an error (exit 2); otherwise (a
// .gitignore, which git reads whatever it holds) it is skipped with a warning.
util::Result<std::vector<std::string>> ignore_patterns(int dir, const char* name,
                                                       const std::string& path, bool strict,
                                                       std::ostream& warn) {
    const util::UniqueFd fd(::openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
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
        const std::string why = text ? "larger than 64 KiB" : text.error();
        if (!strict) {
            warn << "kftrain: warning: code: skipped " << util::escape_line(path) << ": " << why
                 << "; no patterns read from it\n";
            return std::vector<std::string>{};
        }
        return bad(fmt::format("code: {}: {}", util::escape_line(path), why));
    }
    auto lines = manifest::parse_ignore_text(*text);
    for (const auto& line : lines.problems) {
        const std::string message =
            fmt::format("{}:{}: {} (got {})", util::escape_line(path), line.line, line.problem,
                        util::escape_line(util::excerpt(line.text, 80)));
        if (strict) {
            return bad(message);
        }
        warn << "kftrain: warning: code: skipped a pattern: " << message << "\n";
    }
    return std::move(lines.patterns);
}

// Takes what read_tree hands it: files into the bundle, links kept to resolve at the end.
class CodeSink : public staging::TarSink {
  public:
    // rules: the defaults (secrets among them) and the folder's .gitignore's; user_rules:
    // .kftrainignore's and code.exclude's.
    CodeSink(const std::vector<manifest::CodeRule>& rules,
             std::vector<manifest::CodeRule> user_rules, int dir, std::string folder,
             std::ostream& warn)
        : m_user_rules(std::move(user_rules)),
          m_dir(dir),
          m_folder(std::move(folder)),
          m_warn(warn) {
        for (const auto& rule : rules) {
            (rule.secret ? m_secret_rules : m_rules).push_back(rule);
        }
    }

    bool wants(const staging::TarEntry& entry) override {
        const bool dir = entry.type == staging::TarEntry::Type::directory;
        if (std::string reserved = manifest::code_reserved_problem(entry.name); !reserved.empty()) {
            m_warn << "kftrain: warning: code: skipped " << util::escape_line(entry.name) << ": "
                   << reserved << "\n";
            return false;
        }
        // The last rule that matches decides, in this order: the defaults and .gitignore's,
        // the secrets (which only the user's own "!" brings back), the user's.
        const manifest::CodeRule* rule = nullptr;
        for (const auto* rules : {&m_user_rules, &m_secret_rules, &m_rules}) {
            rule = rule != nullptr ? rule : manifest::last_code_match(entry.name, dir, *rules);
        }
        if (rule != nullptr && !rule->negated) {
            if (rule->secret) {
                m_secrets.push_back(entry.name + (dir ? "/" : ""));
            }
            return false;
        }
        // A virtualenv, whatever its name (it holds pyvenv.cfg): the image brings the packages.
        const std::string marker = entry.name + "/pyvenv.cfg";
        if (dir && ::faccessat(m_dir, marker.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
            return false;
        }
        if (dir) {
            read_nested_ignore(entry.name);
        }
        return true;
    }

    // Say, in one note, what was left out because it may hold secrets.
    void note_secrets() const {
        if (m_secrets.empty()) {
            return;
        }
        std::string named;
        for (const auto& path : m_secrets) {
            named += (named.empty() ? "" : ", ") + util::escape_line(path);
        }
        m_warn << "kftrain: note: code: left out what may hold secrets: " << named
               << "; a \"!\" line in .kftrainignore or code.exclude (\"!"
               << util::escape_line(m_secrets.front()) << "\") brings one back (docs/code.md)\n";
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

    // Add the rules of folder's own .gitignore, which match the paths beneath it.
    void read_nested_ignore(const std::string& folder) {
        auto walk = util::open_dir_beneath(m_dir, folder, false);
        if (!walk.fd) {
            return;
        }
        const std::string path = m_folder + "/" + folder + "/" + k_git_ignore_file;
        auto patterns = ignore_patterns(walk.fd.get(), k_git_ignore_file, path, false, m_warn);
        if (patterns) {
            auto rules = manifest::code_rules(*patterns, folder + "/");
            m_rules.insert(m_rules.end(), rules.begin(), rules.end());
        }
    }

    std::vector<manifest::CodeRule> m_rules;  // grows by each folder's .gitignore
    std::vector<manifest::CodeRule> m_secret_rules;
    std::vector<manifest::CodeRule> m_user_rules;
    std::vector<std::string> m_secrets;  // what a secret rule left out, as the note names it
    int m_dir;                           // the folder, open
    std::string m_folder;
    std::ostream& m_warn;
    std::vector<CodeFile> m_files;
    CodeFile* m_current = nullptr;  // the file whose content comes: the last of m_files
    uint64_t m_bytes = 0;
    std::vector<std::pair<std::string, std::string>> m_links;
};

}  // namespace

std::string absolute_folder(const std::string& folder) {
    std::error_code ec;
    auto path = std::filesystem::absolute(folder, ec).lexically_normal();
    if (!path.has_filename() && path.has_parent_path() && path != path.root_path()) {
        path = path.parent_path();  // "/work/proj/" of "." as "/work/proj"
    }
    return ec ? folder : path.string();
}

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
    auto ignored =
        ignore_patterns(dir.get(), k_ignore_file, folder + "/" + k_ignore_file, true, warn);
    if (!ignored) {
        return ignored.error_value();
    }
    auto git_ignored = ignore_patterns(dir.get(), k_git_ignore_file,
                                       folder + "/" + k_git_ignore_file, false, warn);
    std::vector<manifest::CodeRule> rules = manifest::default_code_rules();
    auto git_rules = manifest::code_rules(git_ignored ? *git_ignored : std::vector<std::string>{});
    rules.insert(rules.end(), git_rules.begin(), git_rules.end());
    std::vector<std::string> user = *ignored;
    user.insert(user.end(), exclude.begin(), exclude.end());
    util::UniqueFd walked(::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0));
    CodeSink sink(rules, manifest::code_rules(user), dir.get(), folder, warn);
    if (auto read = staging::read_tree(std::move(walked), folder, sink); !read) {
        return read.error_value();
    }
    sink.note_secrets();
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
