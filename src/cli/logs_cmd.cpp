#include "cli/logs_cmd.h"

#include <fmt/format.h>

#include <memory>
#include <regex>

#include "cli/exit_codes.h"
#include "cli/status_view.h"
#include "cli/time_text.h"

namespace kftrain::cli {
namespace {

constexpr size_t k_prefix_width = 8;  // "master-0", "worker-2"

constexpr const char* k_logs_examples =
    "Examples:\n"
    "  # Every replica, each line prefixed with its replica\n"
    "  kftrain logs mnist-ddp -n ml-training\n"
    "  # Follow them all until the job ends (pending pods are waited for)\n"
    "  kftrain logs mnist-ddp -f\n"
    "  # The last 100 lines of each worker, with timestamps\n"
    "  kftrain logs mnist-ddp --replica worker --tail 100 --timestamps\n"
    "  # Why did worker-3 crash: its previous container\n"
    "  kftrain logs mnist-ddp --replica worker-3 --previous\n"
    "  # The trainer's JSON progress lines as they are\n"
    "  kftrain logs mnist-ddp --raw";

}  // namespace

void setup_logs(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<LogsOptions>();
    auto* sub = app.add_subcommand("logs", "Print the logs of every replica of a job");
    sub->footer(k_logs_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_flag("-f,--follow", options->follow, "Stream the logs until the job ends");
    sub->add_option("--tail", options->tail, "Lines per replica, from the end (-1: all)");
    sub->add_option("--since", options->since, "Only lines newer than this (10m, 1h)");
    sub->add_flag("--timestamps", options->timestamps, "Prefix each line with its time");
    sub->add_option("--replica", options->replica,
                    "Only this replica or type: master, worker, worker-3, master-0");
    sub->add_flag("-p,--previous", options->previous,
                  "The previous (terminated) container of each replica");
    sub->add_flag("--raw", options->raw, "Print the trainer's JSON progress lines as they are");
    sub->add_option("--poll-interval", options->poll_interval,
                    "Following: how often to look for started or restarted pods")
        ->default_str("2s");
    sub->callback([options, &ctx] {
        std::string invalid = validate_logs(*options);
        if (!invalid.empty()) {
            ctx.exit_code = report_error(ctx, invalid, k_exit_bad_input);
            return;
        }
        ctx.exit_code = run_logs(*options, ctx);
    });
}

std::string validate_logs(const LogsOptions& options) {
    if (options.tail < -1) {
        return fmt::format("--tail: must be -1 (all) or a count >= 0 (got {})", options.tail);
    }
    bool go_duration = options.since.find('d') == std::string::npos;
    if (!options.since.empty() && (!go_duration || !parse_duration(options.since))) {
        return fmt::format("--since: not a duration such as 10m or 1h (got {})", options.since);
    }
    static const std::regex k_replica("[a-zA-Z]+(-[0-9]+)?");
    if (!options.replica.empty() && !std::regex_match(options.replica, k_replica)) {
        return fmt::format(
            "--replica: must be a type or a replica such as worker or worker-3 "
            "(got {})",
            options.replica);
    }
    auto interval = parse_duration(options.poll_interval);
    if (!interval || *interval <= 0) {
        return fmt::format("--poll-interval: must be a positive duration such as 2s (got {})",
                           options.poll_interval);
    }
    return "";
}

LogOptions to_log_options(const LogsOptions& options) {
    LogOptions out;
    out.follow = options.follow;
    if (options.tail >= 0) {
        out.tail = options.tail;
    }
    out.since = options.since;
    out.timestamps = options.timestamps;
    out.replica = options.replica;
    out.previous = options.previous;
    out.poll_interval = std::chrono::milliseconds(
        static_cast<long long>(*parse_duration(options.poll_interval) * 1000));
    return out;
}

int run_logs(const LogsOptions& options, Context& ctx) {
    auto backend = make_backend(ctx, "");
    return print_logs(*backend, options.job, to_log_options(options), options.raw, ctx);
}

int print_logs(Backend& backend, const std::string& job, const LogOptions& options, bool raw,
               Context& ctx) {
    LogSink sink = [&ctx, &options, raw](const LogLine& line) {
        if (line.notice) {
            ctx.err << fmt::format("kftrain: {}: {}", line.replica, line.text) << std::endl;
            return;
        }
        ctx.out << format_log_line(line, raw, k_prefix_width) << "\n";
        if (options.follow) {
            ctx.out.flush();
        }
    };
    auto done = backend.logs(job, options, sink);
    ctx.out.flush();
    if (!done) {
        return report_error(ctx, done.error(), done.error_code(k_exit_cluster));
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
