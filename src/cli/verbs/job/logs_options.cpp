#include "cli/verbs/job/logs_options.h"

#include <fmt/format.h>

#include <regex>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verbs/job/follow.h"
#include "cli/view/status_view.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/time_text.h"

namespace kftrain::cli {

void add_log_flags(CLI::App& sub, LogsOptions& options) {
    sub.add_flag("-f,--follow", options.follow, "Stream the logs until the job ends");
    sub.add_option("--tail", options.tail,
                   "Lines per replica, from the end (-1: all; default: all, of more than 16 "
                   "replicas the last 100)");
    sub.add_flag("--all", options.all,
                 "Of more than 16 replicas too: every line, and with -f every replica (else the "
                 "lead and any that fails or restarts)");
    sub.add_option("--since", options.since, duration_help("Only lines newer than this"));
    sub.add_flag("--timestamps", options.timestamps, "Prefix each line with its time");
    sub.add_option("--replica", options.replica,
                   "Only this replica or type: master, worker, worker-3, master-0; a TrainJob's "
                   "node, node-1 or dataset-initializer");
    sub.add_flag("-p,--previous", options.previous,
                 "The previous (terminated) container of each replica");
    sub.add_flag("--raw", options.raw, "Print the trainer's JSON progress lines as they are");
    sub.add_flag("--no-progress", options.no_progress,
                 "Following on a terminal: print every progress line instead of one live line "
                 "per replica group updated in place");
    sub.add_option("--poll-interval", options.poll_interval,
                   duration_help("Following: how often to look for started or restarted pods"))
        ->default_str("2s");
}

util::Status LogsOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status LogsOptions::validate() {
    if (auto named = job::check_object_name("job name", job); !named) {
        return named;
    }
    return validate_flags();
}

util::Status LogsOptions::validate_flags() {
    if (tail && *tail < -1) {
        return util::error(fmt::format("--tail: must be -1 (all) or a count >= 0 (got {})", *tail));
    }
    if (since) {
        if (auto parsed = util::parse_duration_flag("--since", *since, util::k_any_duration);
            !parsed) {
            return parsed.error_value();
        }
    }
    // worker, worker-3, node-1, dataset-initializer (a TrainJob's step)
    static const std::regex k_replica("[a-zA-Z]+(-[a-zA-Z]+)*(-[0-9]+)?");
    if (!replica.empty() && !std::regex_match(replica, k_replica)) {
        return util::error(
            fmt::format("--replica: must be a type or a replica such as worker or worker-3 "
                        "(got {})",
                        replica));
    }
    auto interval =
        util::parse_duration_flag("--poll-interval", poll_interval, util::k_positive_duration);
    if (!interval) {
        return interval.error_value();
    }
    backend_options = job::LogOptions{};
    backend_options.follow = follow;
    if (tail && *tail >= 0) {
        backend_options.tail = *tail;
    }
    // --tail -1 asks for every line, as --all does (following, it still follows only some).
    backend_options.all = all || (tail && *tail == -1 && !follow);
    backend_options.since = since.value_or("");
    backend_options.timestamps = timestamps;
    backend_options.replica = replica;
    backend_options.previous = previous;
    backend_options.poll_interval =
        std::chrono::milliseconds(static_cast<long long>(*interval * 1000));
    return util::ok_status();
}

int LogsOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    if (follow || backend->capabilities().on_this_machine) {
        return print_logs(*backend, job, backend_options, raw, no_progress, ctx);
    }
    // The status the cluster's logs read first, read here: a job answered from its record in
    // history says so before its lines.
    auto status = backend->status_without_progress(job);
    if (!status) {
        return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
    }
    view::print_recorded_note(ctx.err, *status, ctx.global.from_history);
    job::LogOptions options = backend_options;
    options.known = &*status;
    return print_logs(*backend, job, options, raw, no_progress, ctx);
}

}  // namespace kftrain::cli
