#include "cli/verbs/job/status_cmd.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <sstream>
#include <thread>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "cli/view/status_view.h"
#include "cost/estimate_inputs.h"
#include "inspect/diagnosis_run.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_status_examples =
    "Examples:\n"
    "  # State, replicas, and the master's last progress line (epoch, loss, ETA)\n"
    "  kftrain status mnist-ddp -n ml-training\n"
    "  # A TrainJob the same way: its nodes, and its trainerStatus progress when posted\n"
    "  kftrain status mnist-trainjob\n"
    "  # With pods, nodes and exit codes\n"
    "  kftrain status mnist-ddp -o wide\n"
    "  # A job of more than 16 replicas: a row for each instead of their counts\n"
    "  kftrain status big-ddp --all\n"
    "  # For scripts\n"
    "  kftrain status mnist-ddp -o json\n"
    "  # Print it again whenever it changes, until the job ends\n"
    "  kftrain status mnist-ddp --watch\n"
    "  # Price its GPUs as A100s from your own price catalog\n"
    "  kftrain status mnist-ddp --gpu a100 --prices prices.yaml";

// What --watch compares: the status as printed, without the ages that change every second.
std::string fingerprint(const job::JobStatus& status) {
    std::ostringstream text;
    view::print_status(text, status, view::OutputFormat::Json, 0);
    return text.str();
}

}  // namespace

void setup_status(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<StatusOptions>();
    auto* sub = app.add_subcommand("status", "Show a job's state, replicas and progress");
    sub->footer(k_status_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_option("-o,--output", options->output, "Output format: table, wide, json or yaml");
    sub->add_flag("-w,--watch", options->watch, "Print the status again on each change");
    sub->add_flag("--all", options->all,
                  "A row for every replica (of more than 16: their counts and those not well; "
                  "-o wide shows every one too)");
    sub->add_option("--interval", options->interval,
                    duration_help("How often --watch looks at the job"))
        ->default_str("5s");
    sub->add_option("--prices", options->prices,
                    "Price catalog for the Cost line (default: KFTRAIN_PRICES, else built-in)");
    sub->add_option("--gpu", options->gpu,
                    "GPU type of the replicas, as the price catalog names it (default: read from "
                    "the node selector)");
    run_when_parsed(*sub, options, ctx);
}

util::Status StatusOptions::complete(const Context& ctx) {
    auto loaded = cost::load_pricing(prices, gpu);
    if (!loaded) {
        return loaded.error_value();
    }
    pricing = std::move(*loaded);
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status StatusOptions::validate() {
    if (auto named = job::check_object_name("job name", job); !named) {
        return named;
    }
    auto parsed = view::parse_output_format(output, view::k_job_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    auto seconds = util::parse_duration_flag("--interval", interval, util::k_positive_duration);
    if (!seconds) {
        return seconds.error_value();
    }
    interval_s = *seconds;
    return util::ok_status();
}

int StatusOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    std::string last;
    while (true) {
        auto status = backend->status(job);
        if (!status) {
            return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
        }
        if (last.empty()) {
            view::print_recorded_note(ctx.err, *status, ctx.global.from_history);
        }
        // Pods missing: the events say whether a quota refused them (one more read).
        const auto events = inspect::pods_missing(*status) ? backend->events(*status)
                                                           : std::vector<diagnose::EventEvidence>{};
        status->why = inspect::why_line(*backend, *status, events, inspect::k_default_stuck_after_s,
                                        std::time(nullptr));
        std::string now_seen = fingerprint(*status);
        if (now_seen != last) {
            if (!last.empty()) {
                ctx.out << "\n";
            }
            const bool every = all || format == view::OutputFormat::Wide;
            view::print_status(ctx.out, *status, format, std::time(nullptr), &pricing,
                               every ? view::ReplicaRows::Every : view::ReplicaRows::SummaryOfMany);
            ctx.out.flush();
            last = now_seen;
        }
        if (!watch || job::is_finished(status->phase)) {
            return k_exit_ok;
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
    }
}

}  // namespace kftrain::cli
