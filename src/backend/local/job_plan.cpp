#include "backend/local/job_plan.h"

#include <fmt/format.h>

#include "backend/local/process/command_line.h"
#include "backend/local/process/replica_container.h"
#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "manifest/code.h"
#include "manifest/framework.h"
#include "manifest/render/metrics_scrape.h"
#include "manifest/retries.h"

namespace kftrain::backend::local {
namespace {

// Return what a replica of a container runs: its argv with volume paths mapped and the
// program resolved.
util::Result<std::vector<std::string>> container_argv(const ReplicaContainer& container,
                                                      const std::vector<manifest::Volume>& volumes,
                                                      const PlanContext& context) {
    std::vector<std::string> argv = map_volume_paths(container.argv, volumes, context.cwd);
    auto program = resolve_command(argv.front(), context.self_dir);
    if (!program) {
        return program.error_value();
    }
    argv.front() = *program;
    return argv;
}

JobState job_state(const manifest::JobSpec& spec, const PlanContext& context) {
    JobState state;
    state.name = spec.name;
    state.namespace_ = spec.namespace_;
    state.created = context.now;
    state.cwd = context.cwd;
    state.master_port = context.ports.master;
    state.kind = manifest::kind_name(spec.kind);
    state.framework = manifest::framework_name(manifest::job_framework(spec));
    // A TrainJob's runtime (JobSet) fails the job when a node fails, after restarting the whole
    // job as often as its budget says (the derived runtime's failurePolicy.maxRestarts, as on
    // a cluster: manifest/retries.h); the Training Operator follows the job file's
    // restartPolicy and backoffLimit.
    const bool v2 = spec.kind == manifest::JobKind::TrainJob;
    state.restart_policy = v2 && spec.restart_policy != "ExitCode" ? "Never" : spec.restart_policy;
    state.backoff_limit = v2 ? std::nullopt : spec.run_policy.backoff_limit;
    if (v2) {
        state.max_restarts = manifest::job_retries(spec.run_policy.backoff_limit);
    }
    state.active_deadline_seconds = spec.run_policy.active_deadline_seconds;
    state.cpu = spec.resources.cpu;
    state.memory = spec.resources.memory;
    state.cpu_limit = spec.resources.cpu_limit;
    state.memory_limit = spec.resources.memory_limit;
    state.gpus = spec.resources.gpus;
    state.node_selector = spec.node_selector;
    state.queue = spec.queue;
    if (!spec.queue.empty()) {
        state.priority_class = spec.queue_priority_class;
        state.queued = context.now;
        state.queue_order = context.now_ns;
    }
    return state;
}

}  // namespace

util::Result<JobState> plan_job(const job::RenderedJob& job, const PlanContext& context) {
    const manifest::JobSpec& spec = job.spec;
    if (manifest::job_framework(spec) == manifest::Framework::mpi) {
        return util::error(
            fmt::format("runtime {}: kftrain --local cannot run an MPI runtime: its launcher "
                        "reaches every node with mpirun over SSH (sshd in each node pod, a key "
                        "pair and a hostfile the runtime makes), which local processes do not "
                        "reproduce; run it on a cluster, or render it to check it",
                        spec.runtime),
            k_exit_bad_input);
    }
    auto containers = read_replica_containers(job.manifest);
    if (!containers) {
        return util::error(containers.error(), k_exit_bad_input);
    }
    JobState state = job_state(spec, context);
    // The code a job ships runs from the copy submit makes in its state directory.
    std::vector<manifest::Volume> volumes = spec.volumes;
    for (auto& volume : volumes) {
        if (job.code && volume.name == manifest::k_code_volume) {
            volume.local_path = code_dir(spec.name);
            state.cwd = volume.local_path;
            state.code_hash = job.code->hash;
            state.code_files = static_cast<long long>(job.code->files.size());
        }
    }
    for (const auto& ref : replica_refs(spec)) {
        auto container = containers->find(ref.type);
        if (container == containers->end()) {
            return util::error(
                fmt::format("spec.{}: the manifest has no {} replicas",
                            manifest::operator_kind(spec.kind).replica_specs, ref.type),
                k_exit_bad_input);
        }
        auto argv = container_argv(container->second, volumes, context);
        if (!argv) {
            return argv.error_value();
        }
        ReplicaState replica;
        replica.name = ref.name;
        replica.type = ref.type;
        replica.index = ref.index;
        replica.rank = ref.rank;
        replica.argv = std::move(*argv);
        replica.metrics_port = spec.metrics_port();  // the supervisor picks free ones
        replica.metrics_processes =
            replica.metrics_port > 0 ? manifest::metrics_processes(spec) : 0;
        replica.metrics_path = spec.metrics_path();
        replica.env = container->second.env;
        for (auto& [name, value] : operator_environment(spec, ref.rank, context.ports)) {
            replica.env[name] = value;  // the operator's variables come after the container's
        }
        state.replicas.push_back(std::move(replica));
    }
    return state;
}

}  // namespace kftrain::backend::local
