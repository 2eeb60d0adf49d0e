#include "cli/verbs/job/scale_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "backend/select.h"
#include "cli/verb.h"
#include "job/exit_codes.h"
#include "job/names.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_scale_examples =
    "Examples:\n"
    "  # Run an elastic PyTorchJob with 6 Workers (within its elasticPolicy\n"
    "  # minReplicas..maxReplicas; torchrun re-forms the group)\n"
    "  kftrain scale mnist-ddp --replicas 6 -n ml-training\n\n"
    "Only elastic PyTorchJobs scale: a job without elasticPolicy, a value outside its\n"
    "bounds and a TrainJob (not supported by Kubeflow Trainer yet) exit 2, the job unchanged.";

}  // namespace

void setup_scale(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<ScaleOptions>();
    auto* sub = app.add_subcommand(
        "scale", "Set an elastic PyTorchJob's Worker replicas within its elasticPolicy bounds");
    sub->footer(k_scale_examples);
    sub->add_option("job", options->job, "Name of the job")->required();
    sub->add_option("--replicas", options->replicas,
                    "Worker replicas to run (the Master stays), within elasticPolicy "
                    "minReplicas..maxReplicas")
        ->required();
    run_when_parsed(*sub, options, ctx);
}

util::Status ScaleOptions::complete(const Context& ctx) {
    namespace_ = ctx.global.namespace_;
    return util::ok_status();
}

util::Status ScaleOptions::validate() const {
    if (auto named = job::check_object_name("job name", job); !named) {
        return named;
    }
    if (replicas < 1) {
        return util::error(fmt::format("--replicas: must be >= 1 (got {})", replicas));
    }
    return util::ok_status();
}

int ScaleOptions::run(Context& ctx) const {
    auto backend = backend::make_backend(ctx, "", namespace_);
    auto kind = backend->kind_of(job);
    if (!kind) {
        return report_error(ctx, kind.error(), kind.error_code(k_exit_cluster));
    }
    if (auto scaled = backend->scale(job, replicas); !scaled) {
        return report_error(ctx, scaled.error(), scaled.error_code(k_exit_cluster));
    }
    ctx.out << fmt::format("{} scaled to {} Worker replicas\n", job::job_ref(*kind, job), replicas);
    return k_exit_ok;
}

}  // namespace kftrain::cli
