#include "cli/verbs/job/describe_cmd.h"

#include <ctime>
#include <memory>

#include "backend/select.h"
#include "cli/verb.h"
#include "cli/view/describe_view.h"
#include "cli/view/output_format.h"
#include "cli/view/status_view.h"
#include "job/exit_codes.h"
#include "job/names.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_describe_examples =
    "Examples:\n"
    "  # Why is it pending or failing: replicas, conditions, events (newest last)\n"
    "  kftrain describe mnist-ddp -n ml-training\n"
    "  # The same as data for scripts: the status -o json document with conditions and events\n"
    "  kftrain describe mnist-ddp -o json\n"
    "  # A job of more than 16 replicas, with a row for each instead of their counts\n"
    "  kftrain describe big-ddp --all";

}  // namespace

void setup_describe(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<DescribeOptions>();
    auto* sub = app.add_subcommand("describe", "Explain a job: replicas, conditions and events");
    sub->footer(k_describe_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_option("-o,--output", options->output,
                    view::output_flag_help(view::k_describe_formats, true));
    sub->add_flag("--all", options->all,
                  "A row for every replica (of more than 16: their counts and those not well)");
    run_when_parsed(*sub, options, ctx);
}

util::Status DescribeOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status DescribeOptions::validate() {
    if (auto named = job::check_object_name("job name", job); !named) {
        return named;
    }
    auto parsed = view::parse_optional_output_format(output, view::k_describe_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int DescribeOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    auto described = backend->describe(job);
    if (!described) {
        return report_error(ctx, described.error(), described.error_code(k_exit_cluster));
    }
    if (described->summary) {
        view::print_recorded_note(ctx.err, *described->summary, ctx.global.from_history);
    }
    if (format) {
        view::print_data(ctx.out, described->data, *format);
    } else {
        view::print_description(ctx.out, *described, std::time(nullptr),
                                all ? view::ReplicaRows::Every : view::ReplicaRows::SummaryOfMany);
    }
    return k_exit_ok;
}

}  // namespace kftrain::cli
