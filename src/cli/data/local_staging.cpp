#include "cli/data/local_staging.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "cli/data/claim_path.h"
#include "cli/data/tree_copy.h"
#include "cli/exit_codes.h"
#include "cli/job/interrupt.h"
#include "util/text.h"

namespace kftrain::cli::data {
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

// Return whether one of the two directories lies inside the other (or they are the same).
bool overlap(const std::string& a, const std::string& b) {
    std::error_code ec;
    const std::string x = fs::weakly_canonical(a, ec).string() + "/";
    const std::string y = fs::weakly_canonical(b, ec).string() + "/";
    return x.compare(0, y.size(), y) == 0 || y.compare(0, x.size(), x) == 0;
}

// Copy the tree under from into the directory to, as TreeSink lays it down.
util::Result<CopyReport> copy_tree(const std::string& from, const std::string& to, bool replace,
                                   bool keep_symlinks, std::ostream& warn) {
    auto writer = TreeWriter::open(to, replace);
    if (!writer) {
        return util::Error{writer.error_value()};
    }
    TreeSink sink(*writer, keep_symlinks, warn);
    if (auto copied = read_tree(from, sink); !copied) {
        return util::Error{copied.error_value()};
    }
    return sink.report();
}

std::string where(const LocalTarget& target) {
    return fmt::format("claim {}:{} ({})", target.claim, target.path,
                       local_claim_path(target.root, target.path));
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

int put_local(Context& ctx, const LocalTarget& target, const std::string& local_dir) {
    job::catch_termination();
    // Checked before claim_directory makes anything: bad input creates nothing.
    if (overlap(local_dir, local_claim_path(target.root, target.path))) {
        return report_error(ctx,
                            fmt::format("LOCAL_DIR: {} and {} overlap: copy from a directory "
                                        "outside the claim's",
                                        local_dir, local_claim_path(target.root, target.path)),
                            k_exit_bad_input);
    }
    auto dest = claim_directory(target.root, target.path, target.claim, true);
    if (!dest) {
        return report_error(ctx, dest.error(), dest.error_code(k_exit_cluster));
    }
    // The user's own files: replaced in the claim as tar does, their symlinks kept as links.
    auto copied = copy_tree(local_dir, *dest, true, true, ctx.err);
    if (!copied) {
        return report_error(ctx, copied.error(), copied.error_code(k_exit_cluster));
    }
    ctx.err << copied_line("put", *copied, local_dir, where(target));
    return k_exit_ok;
}

int get_local(Context& ctx, const LocalTarget& target, const std::string& out_dir, bool force) {
    job::catch_termination();
    auto dir = claim_directory(target.root, target.path, target.claim, false);
    if (!dir) {
        return report_error(ctx, dir.error(), dir.error_code(k_exit_not_found));
    }
    if (overlap(*dir, out_dir)) {
        return report_error(
            ctx,
            fmt::format("OUT_DIR: {} and {} overlap: copy to a directory outside the claim's",
                        out_dir, *dir),
            k_exit_bad_input);
    }
    auto listing = list_directory(*dir);
    if (!listing) {
        return report_error(ctx, listing.error(), listing.error_code(k_exit_cluster));
    }
    if (auto existing = existing_paths(*listing, out_dir); !force && !existing.empty()) {
        auto refused = would_replace(existing, out_dir);
        return report_error(ctx, refused.message, refused.code);
    }
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) {
        return report_error(ctx, fmt::format("cannot create {}: {}", out_dir, ec.message()),
                            k_exit_cluster);
    }
    auto copied = copy_tree(*dir, out_dir, force, false, ctx.err);
    if (!copied) {
        return report_error(ctx, copied.error(), copied.error_code(k_exit_cluster));
    }
    ctx.err << copied_line("get", *copied, where(target), out_dir);
    return k_exit_ok;
}

int list_local(Context& ctx, const LocalTarget& target, view::OutputFormat format) {
    auto dir = claim_directory(target.root, target.path, target.claim, false);
    if (!dir) {
        return report_error(ctx, dir.error(), dir.error_code(k_exit_not_found));
    }
    auto listing = list_directory(*dir);
    if (!listing) {
        return report_error(ctx, listing.error(), listing.error_code(k_exit_cluster));
    }
    listing->claim = target.claim;
    listing->path = target.path;
    listing->local_path = *dir;
    print_listing(*listing, format, ctx.out);
    return k_exit_ok;
}

}  // namespace kftrain::cli::data
