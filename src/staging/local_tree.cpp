#include "staging/local_tree.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "job/exit_codes.h"
#include "util/text.h"

namespace kftrain::staging {
namespace {

namespace fs = std::filesystem;

std::string type_of(const struct stat& st) {
    if (S_ISREG(st.st_mode)) {
        return "file";
    }
    if (S_ISDIR(st.st_mode)) {
        return "directory";
    }
    return S_ISLNK(st.st_mode) ? "symlink" : "other";
}

// Return what the symlink at path holds, "" when it cannot be read.
std::string link_target(const std::string& path) {
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    return n < 0 ? "" : target.substr(0, static_cast<size_t>(n));
}

}  // namespace

util::Result<Listing> list_directory(const std::string& dir) {
    Listing listing;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) {
        return util::error(fmt::format("cannot read {}: {}", dir, ec.message()), k_exit_cluster);
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        // Lexically: fs::relative resolves links, which would list a link under its target.
        const std::string path = it->path().lexically_relative(dir).string();
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) {
            listing.left_out.push_back(fmt::format("{}: {}", path, std::strerror(errno)));
            continue;
        }
        Entry entry{path, type_of(st), S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0,
                    static_cast<int64_t>(st.st_mtime), ""};
        if (S_ISLNK(st.st_mode)) {
            entry.link = link_target(it->path().string());
        }
        listing.entries.push_back(std::move(entry));
    }
    if (ec) {
        return util::error(fmt::format("cannot read {}: {}", dir, ec.message()), k_exit_cluster);
    }
    std::sort(listing.entries.begin(), listing.entries.end(),
              [](const Entry& x, const Entry& y) { return x.path < y.path; });
    listing.found = true;
    return listing;
}

void warn_left_out(const Listing& listing, std::ostream& warn) {
    constexpr size_t k_shown = 10;
    for (size_t i = 0; i < listing.left_out.size() && i < k_shown; ++i) {
        warn << "kftrain: warning: not listed: " << util::escape_line(listing.left_out[i]) << "\n";
    }
    if (listing.left_out.size() > k_shown) {
        warn << fmt::format("kftrain: warning: {} more not listed\n",
                            listing.left_out.size() - k_shown);
    }
}

util::Result<std::vector<std::string>> top_level_names(const std::string& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
        names.push_back(it->path().filename().string());
    }
    if (ec) {
        return util::error(fmt::format("cannot read {}: {}", dir, ec.message()), k_exit_cluster);
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace kftrain::staging
