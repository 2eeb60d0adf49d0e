#include "cli/verbs/job/logs_cmd.h"

#include <memory>

#include "cli/verb.h"
#include "cli/verbs/job/logs_options.h"

namespace kftrain::cli {
namespace {

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
    "  # A TrainJob's second node, and its dataset initializer step\n"
    "  kftrain logs mnist-trainjob --replica node-1\n"
    "  kftrain logs mnist-trainjob --replica dataset-initializer\n"
    "  # The trainer's JSON progress lines as they are\n"
    "  kftrain logs mnist-ddp --raw\n"
    "  # Follow with every progress line printed, as in a pipe, instead of one live line\n"
    "  kftrain logs mnist-ddp -f --no-progress";

}  // namespace

void setup_logs(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<LogsOptions>();
    auto* sub = app.add_subcommand("logs", "Print the logs of every replica of a job");
    sub->footer(k_logs_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    add_log_flags(*sub, *options);
    run_when_parsed(*sub, options, ctx);
}

}  // namespace kftrain::cli
