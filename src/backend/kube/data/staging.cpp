#include "backend/kube/data/staging.h"

#include <fmt/format.h>

#include <filesystem>

#include "backend/kube/data/helper_session.h"
#include "backend/kube/kubectl.h"
#include "backend/kube/kubectl_errors.h"
#include "job/exit_codes.h"
#include "staging/claim_path.h"
#include "staging/local_tree.h"
#include "staging/progress_meter.h"
#include "staging/stream_pipe.h"
#include "staging/tar_reader.h"
#include "staging/tree_copy.h"
#include "util/signals/interrupt.h"
#include "util/text.h"

namespace kftrain::backend::kube {
namespace {

std::string where(const job::ClaimTarget& target) {
    return fmt::format("claim {}:{}", target.claim, target.path);
}

// The last line of a failed copy's stderr that says something, for the message: not
// kubectl's own "command terminated with exit code N", which the exit status tells.
std::string last_words(const std::string& err) {
    auto lines = util::split_lines(err);
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        if (!util::trim(*it).empty() && it->rfind("command terminated with exit code", 0) != 0) {
            return backend::kube::printable_line(util::trim(*it));
        }
    }
    return "";
}

// What to do when writing into a claim was refused: the helper's user, and the way out.
std::string permission_hint(const std::string& why) {
    if (util::to_lower(why).find("permission denied") == std::string::npos) {
        return "";
    }
    return " (hint: the helper pod runs as user 65534, and this claim's root is writable by "
           "root only, as a fresh hostPath or NFS volume is (they ignore fsGroup): give "
           "--as-root, or use storage that applies fsGroup)";
}

// Copy as ends say with a progress meter; an error names what failed. A copy stops on a
// caught signal (exit 130) and when no byte moves for the stall limit (exit 5).
util::Status copy(const job::BackendOptions& global, job::Reporter& report, staging::PipeEnds ends,
                  const std::string& label, uint64_t estimate, const std::string& pod,
                  bool into_claim) {
    staging::ProgressMeter meter(report.notes, label, estimate);
    ends.on_bytes = [&meter](uint64_t bytes) { meter.update(bytes); };
    ends.cancelled = [] { return util::interrupt_requested(); };
    ends.stall_limit = backend::kube::call_limit(global.request_timeout, {"exec"});
    auto piped = staging::run_pipe(ends);
    meter.finish();
    if (!piped) {
        return util::error(piped.error(), k_exit_cluster);
    }
    if (piped->cancelled) {
        return util::error(fmt::format("interrupted; deleting helper pod {}", pod),
                           k_exit_interrupted);
    }
    if (piped->stalled) {
        return util::error(
            fmt::format("{} stalled: no data moved for {} s (--request-timeout); deleting helper "
                        "pod {}",
                        label, ends.stall_limit->count() / 1000, pod),
            k_exit_timeout);
    }
    if (!piped->consume_error.empty()) {
        return util::error(fmt::format("{} stopped: {}", label, piped->consume_error),
                           piped->consume_code != 0 ? piped->consume_code : k_exit_cluster);
    }
    const bool to_ok = ends.to.empty() || piped->to.success();
    if (piped->from.success() && to_ok) {
        return util::ok_status();
    }
    // The side that failed first says why; the other usually only saw the pipe end.
    const bool to_failed = !to_ok;
    std::string why = last_words(to_failed ? piped->to_err : piped->from_err);
    if (why.empty()) {
        why = last_words(to_failed ? piped->from_err : piped->to_err);
    }
    return util::error(
        fmt::format("{} failed ({}): {}{}", label, (to_failed ? piped->to : piped->from).describe(),
                    why.empty() ? "no message" : why, into_claim ? permission_hint(why) : ""),
        k_exit_cluster);
}

// Return a failed step's error with its exit code, 4 (a cluster error) unless it carries one.
util::Status fail(const util::Status& status) {
    return util::error(status.error(), status.error_code(k_exit_cluster));
}

// Check the claim, start the helper pod and list the path in the claim.
util::Result<job::Listing> start_and_list(HelperSession& session) {
    if (auto claim = session.check_claim(); !claim) {
        return claim.error_value();
    }
    if (auto started = session.start(); !started) {
        return started.error_value();
    }
    return session.list();
}

}  // namespace

util::Status put_to_claim(const job::BackendOptions& global, const job::ClaimTarget& target,
                          const std::string& local_dir, job::Reporter& report) {
    util::catch_termination();
    auto listing = staging::list_directory(local_dir);
    auto names = staging::top_level_names(local_dir);
    if (!listing || !names) {
        return util::error(!listing ? listing.error() : names.error(), k_exit_cluster);
    }
    HelperSession session(global, report, target, true);
    if (auto claim = session.check_claim(); !claim) {
        return fail(claim);
    }
    if (names->empty()) {
        report.notes << fmt::format("put: {} is empty: nothing to copy\n", local_dir);
        return util::ok_status();
    }
    if (auto started = session.start(); !started) {
        return fail(started);
    }
    const std::string dest = staging::pod_path(target.path);
    if (target.path != "/") {
        auto made = session.exec({"mkdir", "-p", "--", dest});
        if (!made) {
            return fail(util::Status(made.error_value()));
        }
        if (!made->ok()) {
            return util::error(
                fmt::format("cannot create {} in claim {}: {}{}", target.path, target.claim,
                            last_words(made->err), permission_hint(made->err)),
                k_exit_cluster);
        }
    }
    std::vector<std::string> tar = {"tar", "-c", "-f", "-", "-C", local_dir, "--"};
    tar.insert(tar.end(), names->begin(), names->end());
    staging::PipeEnds ends;
    ends.from = tar;
    ends.to = session.exec_argv({"tar", "-x", "-f", "-", "-C", dest}, true);
    auto copied = copy(global, report, std::move(ends), "put",
                       staging::tar_size_estimate(listing->bytes(), listing->entries.size()),
                       session.pod_name(), true);
    if (!copied) {
        return fail(copied);
    }
    report.notes << fmt::format("put: {}, {} from {} to {}\n",
                                util::counted(listing->files(), "file"),
                                staging::format_bytes(listing->bytes()), local_dir, where(target));
    return util::ok_status();
}

util::Status get_from_claim(const job::BackendOptions& global, const job::ClaimTarget& target,
                            const std::string& out_dir, bool force, job::Reporter& report) {
    util::catch_termination();
    HelperSession session(global, report, target, false);
    auto listing = start_and_list(session);
    if (!listing) {
        return fail(util::Status(listing.error_value()));
    }
    if (!listing->path_is_directory) {
        return util::error(fmt::format("--path: {} in claim {} is a file, not a directory",
                                       target.path, target.claim),
                           k_exit_bad_input);
    }
    if (auto existing = staging::existing_paths(*listing, out_dir); !force && !existing.empty()) {
        return fail(util::Status(staging::would_replace(existing, out_dir)));
    }
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    auto writer = staging::TreeWriter::open(out_dir, force);
    if (ec || !writer) {
        return util::error(
            ec ? fmt::format("cannot create {}: {}", out_dir, ec.message()) : writer.error(),
            k_exit_cluster);
    }
    staging::TreeSink sink(*writer, false, report.notes);
    staging::TarReader reader(sink);
    staging::PipeEnds ends;
    ends.from = session.exec_argv(
        {"tar", "-c", "-f", "-", "-C", staging::pod_path(target.path), "."}, false);
    ends.consume = [&reader](const char* data, size_t size) { return reader.feed(data, size); };
    auto copied = copy(global, report, std::move(ends), "get",
                       staging::tar_size_estimate(listing->bytes(), listing->entries.size()),
                       session.pod_name(), false);
    if (copied) {
        copied = reader.finish();
    }
    if (!copied) {
        return fail(copied);
    }
    report.notes << staging::copied_line("get", sink.report(), where(target), out_dir);
    return util::ok_status();
}

util::Result<job::Listing> list_claim(const job::BackendOptions& global,
                                      const job::ClaimTarget& target, job::Reporter& report) {
    util::catch_termination();
    HelperSession session(global, report, target, false);
    auto listing = start_and_list(session);
    if (!listing) {
        return util::error(listing.error(), listing.error_code(k_exit_cluster));
    }
    return std::move(*listing);
}

}  // namespace kftrain::backend::kube
