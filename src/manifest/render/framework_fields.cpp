#include "manifest/render/framework_fields.h"

#include <fmt/format.h>

#include "manifest/framework.h"

namespace kftrain::manifest {
namespace {

using util::error;

// "an XGBoostJob" or "a TrainJob on runtime xgboost-distributed", for messages.
std::string what_runs(const JobSpec& spec) {
    if (spec.kind == JobKind::TrainJob) {
        return fmt::format("a TrainJob on runtime {}", spec.runtime);
    }
    return fmt::format("{} {}", spec.kind == JobKind::XGBoostJob ? "an" : "a",
                       kind_name(spec.kind));
}

util::Status refuse(const JobSpec& spec, const std::string& path, const std::string& why,
                    const std::string& got) {
    return error(fmt::format("{}: {} (got {})", spec.source.locate(path), why, got));
}

util::Status check_command(const JobSpec& spec, Framework framework) {
    if (spec.command.empty()) {
        return refuse(spec, "command",
                      fmt::format("{} runs your own {} program: set command (and args) to start "
                                  "it; kftrain-trainer is a PyTorch trainer",
                                  what_runs(spec), framework_name(framework)),
                      "kftrain-trainer, the default");
    }
    if (framework == Framework::mpi && !is_mpi_launcher(spec.command.front())) {
        return refuse(spec, "command",
                      fmt::format("{} starts the job from its launcher node with mpirun, which "
                                  "reaches every node through the hostfile the runtime mounts: "
                                  "the command must start with mpirun (or mpiexec), e.g. [mpirun, "
                                  "--hostfile, /etc/mpi/hostfile, python3, train.py]",
                                  what_runs(spec)),
                      spec.command.front());
    }
    return util::ok_status();
}

}  // namespace

util::Status check_framework_fields(const JobSpec& spec) {
    const Framework framework = job_framework(spec);
    if (framework == Framework::torch) {
        return util::ok_status();
    }
    if (spec.kind != JobKind::TrainJob && spec.elastic_policy) {
        return refuse(spec, "elasticPolicy",
                      fmt::format("has no {} equivalent: only a PyTorchJob trains elastically",
                                  kind_name(spec.kind)),
                      "elasticPolicy");
    }
    if (!spec.nproc_per_node.empty() && framework != Framework::mpi) {
        return refuse(
            spec, "nprocPerNode",
            fmt::format("has no place in {}: it starts one process per {}; start "
                        "more from your program if it needs them",
                        what_runs(spec), spec.kind == JobKind::TrainJob ? "node" : "replica"),
            spec.nproc_per_node);
    }
    return check_command(spec, framework);
}

}  // namespace kftrain::manifest
