#include "backend/local/data/local_staging.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "job/data/claim_path.h"
#include "job/data/tree_copy.h"
#include "job/exit_codes.h"
#include "job/interrupt.h"
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

// Copy the tree read sends into writer, as job::data::TreeSink lays it down.
util::Result<job::data::CopyReport> copy_tree(
    job::data::TreeWriter& writer, bool keep_symlinks, std::ostream& warn,
    const std::function<util::Status(job::data::TarSink&)>& read) {
    job::data::TreeSink sink(writer, keep_symlinks, warn);
    if (auto copied = read(sink); !copied) {
        return copied.error_value();
    }
    return sink.report();
}

std::string where(const LocalTarget& target) {
    return fmt::format("claim {}:{} ({})", target.claim, target.path,
                       job::data::local_claim_path(target.root, target.path));
}

}  // namespace

int put_local(job::Context& ctx, const LocalTarget& target, const std::string& local_dir) {
    job::catch_termination();
    // Checked before job::data::claim_directory makes anything: bad input creates nothing.
    if (overlap(local_dir, job::data::local_claim_path(target.root, target.path))) {
        return job::report_error(
            ctx,
            fmt::format("LOCAL_DIR: {} and {} overlap: copy from a directory "
                        "outside the claim's",
                        local_dir, job::data::local_claim_path(target.root, target.path)),
            k_exit_bad_input);
    }
    auto dest = job::data::claim_directory(target.root, target.path, target.claim, true);
    if (!dest) {
        return job::report_error(ctx, dest.error(), dest.error_code(k_exit_cluster));
    }
    // The user's own files: replaced in the claim as tar does, their symlinks kept as links;
    // written beneath the directory the walk opened, never through a path looked up again.
    auto writer = job::data::TreeWriter::beneath(std::move(dest->fd), dest->path, true);
    auto copied = copy_tree(writer, true, ctx.err, [&local_dir](job::data::TarSink& sink) {
        return job::data::read_tree(local_dir, sink);
    });
    if (!copied) {
        return job::report_error(ctx, copied.error(), copied.error_code(k_exit_cluster));
    }
    ctx.err << job::data::copied_line("put", *copied, local_dir, where(target));
    return k_exit_ok;
}

int get_local(job::Context& ctx, const LocalTarget& target, const std::string& out_dir,
              bool force) {
    job::catch_termination();
    auto dir = job::data::claim_directory(target.root, target.path, target.claim, false);
    if (!dir) {
        return job::report_error(ctx, dir.error(), dir.error_code(k_exit_not_found));
    }
    if (overlap(dir->path, out_dir)) {
        return job::report_error(
            ctx,
            fmt::format("OUT_DIR: {} and {} overlap: copy to a directory outside the claim's",
                        out_dir, dir->path),
            k_exit_bad_input);
    }
    auto listing = job::data::list_directory(dir->path);
    if (!listing) {
        return job::report_error(ctx, listing.error(), listing.error_code(k_exit_cluster));
    }
    if (auto existing = job::data::existing_paths(*listing, out_dir); !force && !existing.empty()) {
        auto refused = job::data::would_replace(existing, out_dir);
        return job::report_error(ctx, refused.message, refused.code);
    }
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) {
        return job::report_error(ctx, fmt::format("cannot create {}: {}", out_dir, ec.message()),
                                 k_exit_cluster);
    }
    auto writer = job::data::TreeWriter::open(out_dir, force);
    if (!writer) {
        return job::report_error(ctx, writer.error(), writer.error_code(k_exit_cluster));
    }
    // Read from the directory the walk opened, never through a path looked up again.
    auto copied = copy_tree(*writer, false, ctx.err, [&dir](job::data::TarSink& sink) {
        return job::data::read_tree(std::move(dir->fd), dir->path, sink);
    });
    if (!copied) {
        return job::report_error(ctx, copied.error(), copied.error_code(k_exit_cluster));
    }
    ctx.err << job::data::copied_line("get", *copied, where(target), out_dir);
    return k_exit_ok;
}

int list_local(job::Context& ctx, const LocalTarget& target,
               const job::data::ListingPrinter& print) {
    auto dir = job::data::claim_directory(target.root, target.path, target.claim, false);
    if (!dir) {
        return job::report_error(ctx, dir.error(), dir.error_code(k_exit_not_found));
    }
    auto listing = job::data::list_directory(dir->path);
    if (!listing) {
        return job::report_error(ctx, listing.error(), listing.error_code(k_exit_cluster));
    }
    listing->claim = target.claim;
    listing->path = target.path;
    listing->local_path = dir->path;
    print(*listing, ctx.out);
    return k_exit_ok;
}

}  // namespace kftrain::backend::local
