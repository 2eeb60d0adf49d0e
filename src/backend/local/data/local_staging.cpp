#include "backend/local/data/local_staging.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "job/exit_codes.h"
#include "staging/claim_path.h"
#include "staging/tree_copy.h"
#include "util/signals/interrupt.h"
#include "util/text.h"

namespace kftrain::backend::local {
namespace {

namespace fs = std::filesystem;

// Return whether one of the two directories lies inside the other (or they are the same).
bool overlap(const std::string& a, const std::string& b) {
    std::error_code ec;
    const std::string x = fs::weakly_canonical(a, ec).string() + "/";
    const std::string y = fs::weakly_canonical(b, ec).string() + "/";
    return x.compare(0, y.size(), y) == 0 || y.compare(0, x.size(), x) == 0;
}

// Copy the tree read sends into writer, as staging::TreeSink lays it down.
util::Result<staging::CopyReport> copy_tree(
    staging::TreeWriter& writer, bool keep_symlinks, std::ostream& warn,
    const std::function<util::Status(staging::TarSink&)>& read) {
    staging::TreeSink sink(writer, keep_symlinks, warn);
    if (auto copied = read(sink); !copied) {
        return copied.error_value();
    }
    return sink.report();
}

std::string where(const LocalTarget& target) {
    return fmt::format("claim {}:{} ({})", target.claim, target.path,
                       staging::local_claim_path(target.root, target.path));
}

}  // namespace

util::Status put_local(const LocalTarget& target, const std::string& local_dir,
                       job::Reporter& report) {
    util::catch_termination();
    // Checked before staging::claim_directory makes anything: bad input creates nothing.
    if (overlap(local_dir, staging::local_claim_path(target.root, target.path))) {
        return util::error(
            fmt::format("LOCAL_DIR: {} and {} overlap: copy from a directory "
                        "outside the claim's",
                        local_dir, staging::local_claim_path(target.root, target.path)),
            k_exit_bad_input);
    }
    auto dest = staging::claim_directory(target.root, target.path, target.claim, true);
    if (!dest) {
        return util::error(dest.error(), dest.error_code(k_exit_cluster));
    }
    // The user's own files: replaced in the claim as tar does, their symlinks kept as links;
    // written beneath the directory the walk opened, never through a path looked up again.
    auto writer = staging::TreeWriter::beneath(std::move(dest->fd), dest->path, true);
    auto copied = copy_tree(writer, true, report.notes, [&local_dir](staging::TarSink& sink) {
        return staging::read_tree(local_dir, sink);
    });
    if (!copied) {
        return util::error(copied.error(), copied.error_code(k_exit_cluster));
    }
    report.notes << staging::copied_line("put", *copied, local_dir, where(target));
    return util::ok_status();
}

util::Status get_local(const LocalTarget& target, const std::string& out_dir, bool force,
                       job::Reporter& report) {
    util::catch_termination();
    auto dir = staging::claim_directory(target.root, target.path, target.claim, false);
    if (!dir) {
        return util::error(dir.error(), dir.error_code(k_exit_not_found));
    }
    if (overlap(dir->path, out_dir)) {
        return util::error(
            fmt::format("OUT_DIR: {} and {} overlap: copy to a directory outside the claim's",
                        out_dir, dir->path),
            k_exit_bad_input);
    }
    auto listing = staging::list_directory(dir->path);
    if (!listing) {
        return util::error(listing.error(), listing.error_code(k_exit_cluster));
    }
    if (auto existing = staging::existing_paths(*listing, out_dir); !force && !existing.empty()) {
        auto refused = staging::would_replace(existing, out_dir);
        return util::error(refused.message, refused.code);
    }
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) {
        return util::error(fmt::format("cannot create {}: {}", out_dir, ec.message()),
                           k_exit_cluster);
    }
    auto writer = staging::TreeWriter::open(out_dir, force);
    if (!writer) {
        return util::error(writer.error(), writer.error_code(k_exit_cluster));
    }
    // Read from the directory the walk opened, never through a path looked up again.
    auto copied = copy_tree(*writer, false, report.notes, [&dir](staging::TarSink& sink) {
        return staging::read_tree(std::move(dir->fd), dir->path, sink);
    });
    if (!copied) {
        return util::error(copied.error(), copied.error_code(k_exit_cluster));
    }
    report.notes << staging::copied_line("get", *copied, where(target), out_dir);
    return util::ok_status();
}

util::Result<job::Listing> list_local(const LocalTarget& target) {
    auto dir = staging::claim_directory(target.root, target.path, target.claim, false);
    if (!dir) {
        return util::error(dir.error(), dir.error_code(k_exit_not_found));
    }
    auto listing = staging::list_directory(dir->path);
    if (!listing) {
        return util::error(listing.error(), listing.error_code(k_exit_cluster));
    }
    listing->claim = target.claim;
    listing->path = target.path;
    listing->local_path = dir->path;
    return std::move(*listing);
}

}  // namespace kftrain::backend::local
