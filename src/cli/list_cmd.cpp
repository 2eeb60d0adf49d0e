#include "cli/list_cmd.h"

#include <fmt/format.h>

#include <ctime>
#include <memory>

#include "cli/backend.h"
#include "cli/estimate_inputs.h"
#include "cli/exit_codes.h"
#include "cli/status_view.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_list_examples =
    "Examples:\n"
    "  # The jobs of one namespace\n"
    "  kftrain list -n ml-training\n"
    "  # Every namespace, with duration, cost so far and progress\n"
    "  kftrain list -A -o wide";

}  // namespace

void setup_list(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<ListOptions>();
    auto* sub = app.add_subcommand("list", "List jobs and their states");
    sub->alias("ls");
    sub->footer(k_list_examples);
    sub->add_flag("-A,--all-namespaces", options->all_namespaces, "Jobs of every namespace");
    sub->add_option("-o,--output", options->output, "Output format: wide, json or yaml");
    sub->add_option("--prices", options->prices,
                    "Price catalog for the cost (default: KFTRAIN_PRICES, else built-in)");
    sub->callback([options, &ctx] {
        std::string invalid = validate_list(*options);
        if (!invalid.empty()) {
            ctx.exit_code = report_error(ctx, invalid, k_exit_bad_input);
            return;
        }
        auto pricing = load_pricing(options->prices, "");
        if (!pricing) {
            ctx.exit_code = report_error(ctx, pricing.error(), k_exit_bad_input);
            return;
        }
        ctx.exit_code = run_list(*options, *pricing, ctx);
    });
}

std::string validate_list(const ListOptions& options) {
    if (!parse_output_format(options.output)) {
        return fmt::format("-o/--output: must be wide, json or yaml (got {})", options.output);
    }
    return "";
}

int run_list(const ListOptions& options, const Pricing& pricing, Context& ctx) {
    auto backend = make_backend(ctx, "");
    auto jobs = backend->list(options.all_namespaces);
    if (!jobs) {
        return report_error(ctx, jobs.error(), jobs.error_code(k_exit_cluster));
    }
    OutputFormat format = *parse_output_format(options.output);
    bool table = format == OutputFormat::Table || format == OutputFormat::Wide;
    if (jobs->empty() && table) {
        ctx.err << "No jobs found.\n";
        return k_exit_ok;
    }
    print_list(ctx.out, *jobs, format, options.all_namespaces, std::time(nullptr), &pricing);
    return k_exit_ok;
}

}  // namespace kftrain::cli
