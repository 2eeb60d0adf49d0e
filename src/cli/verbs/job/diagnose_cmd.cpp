#include "cli/verbs/job/diagnose_cmd.h"

#include <ctime>
#include <memory>

#include "backend/select.h"
#include "cli/flags.h"
#include "cli/verb.h"
#include "cli/view/diagnosis_view.h"
#include "cli/view/status_view.h"
#include "inspect/diagnosis_json.h"
#include "inspect/diagnosis_run.h"
#include "job/exit_codes.h"
#include "job/names.h"
#include "util/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_diagnose_examples =
    "Examples:\n"
    "  # Which replica failed first, why, and the lines that show it\n"
    "  kftrain diagnose mnist-ddp -n ml-training\n"
    "  # The same as data for scripts and agents\n"
    "  kftrain diagnose mnist-ddp -o json\n"
    "  # Call a running job stuck after 2 minutes without a progress report or log line\n"
    "  kftrain diagnose mnist-ddp --stuck-after 2m\n\n"
    "Causes: out-of-memory, signal, exception, peer-gone (a consequence), rendezvous-timeout,\n"
    "nccl-error, divergence, image-pull, unschedulable, crash-loop, deadline-exceeded, evicted,\n"
    "preempted, queue-waiting, queue-evicted, stuck, unknown. See docs/diagnose.md.";

// --stuck-after: a second to a day.
constexpr util::DurationRule k_stuck_after{1, 24 * 3600, "from 1s to 24h"};

}  // namespace

void setup_diagnose(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<DiagnoseOptions>();
    auto* sub = app.add_subcommand(
        "diagnose",
        "Explain why a job failed or is stuck: the first failure, its cause, the lines");
    sub->footer(k_diagnose_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_option("-o,--output", options->output,
                    view::output_flag_help(view::k_describe_formats, true));
    sub->add_option("--stuck-after", options->stuck_after,
                    duration_help("A running job with no progress report or log line for "
                                  "this long is stuck; 1s to 24h (default: 10m)"));
    run_when_parsed(*sub, options, ctx);
}

util::Status DiagnoseOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status DiagnoseOptions::validate() {
    if (auto named = job::check_object_name("job name", job); !named) {
        return named;
    }
    auto parsed = view::parse_optional_output_format(output, view::k_describe_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    stuck_after_s = inspect::k_default_stuck_after_s;
    if (stuck_after) {
        auto seconds = util::parse_duration_flag("--stuck-after", *stuck_after, k_stuck_after);
        if (!seconds) {
            return seconds.error_value();
        }
        stuck_after_s = *seconds;
    }
    return util::ok_status();
}

int DiagnoseOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    // As inspect::diagnose_with reads it, keeping the status: a record's time is said first.
    auto status = backend->status(job);
    if (!status) {
        return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
    }
    view::print_recorded_note(ctx.err, *status, ctx.global.from_history);
    const auto diagnosis = inspect::diagnose_status(*backend, *status, backend->events(*status),
                                                    stuck_after_s, std::time(nullptr));
    if (format) {
        auto data = inspect::diagnosis_to_json(job, diagnosis.kind, diagnosis);
        data["recorded"] = status->recorded.empty() ? nlohmann::ordered_json(nullptr)
                                                    : nlohmann::ordered_json(status->recorded);
        view::print_data(ctx.out, data, *format);
    } else {
        view::print_diagnosis(ctx.out, job::job_ref(diagnosis.kind, job), diagnosis);
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
