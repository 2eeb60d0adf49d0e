#include "cli/local/job_plan.h"

#include "cli/local/command_line.h"

namespace kftrain::cli::local {

util::Result<JobState> plan_job(const manifest::JobSpec& spec, const PlanContext& context) {
    auto argv = replica_argv(spec, context.self_dir, context.cwd);
    if (!argv) {
        return argv.error_value();
    }
    JobState state;
    state.name = spec.name;
    state.namespace_ = spec.namespace_;
    state.created = context.now;
    state.cwd = context.cwd;
    state.master_port = context.ports.master;
    state.restart_policy = spec.restart_policy;
    state.backoff_limit = spec.run_policy.backoff_limit;
    state.active_deadline_seconds = spec.run_policy.active_deadline_seconds;
    state.cpu = spec.resources.cpu;
    state.memory = spec.resources.memory;
    state.gpus = spec.resources.gpus;
    state.node_selector = spec.node_selector;
    for (const auto& ref : replica_refs(spec)) {
        ReplicaState replica;
        replica.name = ref.name;
        replica.type = ref.type;
        replica.index = ref.index;
        replica.rank = ref.rank;
        replica.argv = *argv;
        replica.env = replica_environment(spec, ref.rank, context.ports);
        state.replicas.push_back(std::move(replica));
    }
    return state;
}

}  // namespace kftrain::cli::local
