#include "cli/describe_cmd.h"

#include <memory>

#include "cli/backend_select.h"
#include "cli/exit_codes.h"
#include "cli/job/names.h"
#include "cli/verb.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_describe_examples =
    "Examples:\n"
    "  # Why is it pending or failing: replicas, conditions, events (newest last)\n"
    "  kftrain describe mnist-ddp -n ml-training";

}  // namespace

void setup_describe(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<DescribeOptions>();
    auto* sub = app.add_subcommand("describe", "Explain a job: replicas, conditions and events");
    sub->footer(k_describe_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    run_when_parsed(*sub, options, ctx);
}

util::Status DescribeOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status DescribeOptions::validate() const {
    return job::check_object_name("job name", job);
}

int DescribeOptions::run(Context& ctx) const {
    auto backend = make_backend(ctx, "", namespace_);
    auto text = backend->describe(job);
    if (!text) {
        return report_error(ctx, text.error(), text.error_code(k_exit_cluster));
    }
    ctx.out << *text;
    return k_exit_ok;
}

}  // namespace kftrain::cli
