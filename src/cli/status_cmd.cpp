#include "cli/status_cmd.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/backend.h"
#include "cli/estimate_inputs.h"
#include "cli/exit_codes.h"
#include "cli/status_view.h"
#include "cli/time_text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_status_examples =
    "Examples:\n"
    "  # State, replicas, and the master's last progress line (epoch, loss, ETA)\n"
    "  kftrain status mnist-ddp -n ml-training\n"
    "  # With pods, nodes and exit codes\n"
    "  kftrain status mnist-ddp -o wide\n"
    "  # For scripts\n"
    "  kftrain status mnist-ddp -o json\n"
    "  # Print it again whenever it changes, until the job ends\n"
    "  kftrain status mnist-ddp --watch\n"
    "  # Price its GPUs as A100s from your own price catalog\n"
    "  kftrain status mnist-ddp --gpu a100 --prices prices.yaml";

// What --watch compares: the status as printed, without the ages that change every second.
std::string fingerprint(const JobStatus& status) {
    std::ostringstream text;
    print_status(text, status, OutputFormat::Json, 0);
    return text.str();
}

}  // namespace

void setup_status(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<StatusOptions>();
    auto* sub = app.add_subcommand("status", "Show a job's state, replicas and progress");
    sub->footer(k_status_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_option("-o,--output", options->output, "Output format: wide, json or yaml");
    sub->add_flag("-w,--watch", options->watch, "Print the status again on each change");
    sub->add_option("--interval", options->interval, "How often --watch looks at the job")
        ->default_str("5s");
    sub->add_option("--prices", options->prices,
                    "Price catalog for the Cost line (default: KFTRAIN_PRICES, else built-in)");
    sub->add_option("--gpu", options->gpu,
                    "GPU type of the replicas, as the price catalog names it (default: read from "
                    "the node selector)");
    sub->callback([options, &ctx] {
        std::string invalid = validate_status(*options);
        if (!invalid.empty()) {
            ctx.exit_code = report_error(ctx, invalid, k_exit_bad_input);
            return;
        }
        auto pricing = load_pricing(options->prices, options->gpu);
        if (!pricing) {
            ctx.exit_code = report_error(ctx, pricing.error(), k_exit_bad_input);
            return;
        }
        ctx.exit_code = run_status(*options, *pricing, ctx);
    });
}

std::string validate_status(const StatusOptions& options) {
    if (!parse_output_format(options.output)) {
        return fmt::format("-o/--output: must be wide, json or yaml (got {})", options.output);
    }
    auto interval = parse_duration(options.interval);
    if (!interval || *interval <= 0) {
        return fmt::format("--interval: must be a positive duration such as 5s (got {})",
                           options.interval);
    }
    return "";
}

int run_status(const StatusOptions& options, const Pricing& pricing, Context& ctx) {
    OutputFormat format = *parse_output_format(options.output);
    auto backend = make_backend(ctx, "");
    std::string last;
    while (true) {
        auto status = backend->status(options.job);
        if (!status) {
            return report_error(ctx, status.error(), status.error_code(k_exit_cluster));
        }
        std::string now_seen = fingerprint(*status);
        if (now_seen != last) {
            if (!last.empty()) {
                ctx.out << "\n";
            }
            print_status(ctx.out, *status, format, std::time(nullptr), &pricing);
            ctx.out.flush();
            last = now_seen;
        }
        if (!options.watch || is_finished(status->phase)) {
            return k_exit_ok;
        }
        std::this_thread::sleep_for(
            std::chrono::duration<double>(*parse_duration(options.interval)));
    }
}

}  // namespace kftrain::cli
