#include "cli/verbs/job/resume_cmd.h"

#include <memory>

#include "cli/verb.h"
#include "cli/verbs/job/suspend_cmd.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_resume_examples =
    "Examples:\n"
    "  # Run a suspended job again; the trainer resumes from its newest checkpoint\n"
    "  kftrain resume mnist-ddp -n ml-training\n"
    "  # Only patch the job, do not wait for its pods\n"
    "  kftrain resume mnist-ddp --no-wait\n"
    "  # A job suspended on this machine: its replicas start again\n"
    "  kftrain resume mnist-ddp --local\n\n"
    "Exit codes: 0 resumed, 2 the job has finished, 3 not found, 4 cluster error,\n"
    "5 timed out (the job stays resumed).";

}  // namespace

void setup_resume(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<SuspendOptions>();
    options->change = job::Change::Resume;
    auto* sub = app.add_subcommand(
        "resume", "Resume a suspended job: its replicas start again from the newest checkpoint");
    sub->footer(k_resume_examples);
    add_change_flags(*sub, *options);
    run_when_parsed(*sub, options, ctx);
}

}  // namespace kftrain::cli
