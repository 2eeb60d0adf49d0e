#include "staging/local_tree.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "job/exit_codes.h"

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

}  // namespace

util::Result<Listing> list_directory(const std::string& dir) {
    Listing listing;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) {
        return util::error(fmt::format("cannot read {}: {}", dir, ec.message()), k_exit_cluster);
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) {
            continue;
        }
        listing.entries.push_back(Entry{fs::relative(it->path(), dir, ec).string(), type_of(st),
                                        S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0,
                                        static_cast<int64_t>(st.st_mtime)});
    }
    if (ec) {
        return util::error(fmt::format("cannot read {}: {}", dir, ec.message()), k_exit_cluster);
    }
    std::sort(listing.entries.begin(), listing.entries.end(),
              [](const Entry& x, const Entry& y) { return x.path < y.path; });
    listing.found = true;
    return listing;
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
