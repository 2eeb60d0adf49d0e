#include "backend/kube/submit.h"

#include <fmt/format.h>

#include "backend/kube/code_config_map.h"
#include "backend/kube/doctor/quota_gate.h"
#include "backend/kube/json_fields.h"
#include "backend/kube/kubectl.h"
#include "backend/kube/kubectl_errors.h"
#include "backend/kube/kueue/kueue.h"
#include "backend/kube/runtime_budget.h"
#include "job/exit_codes.h"
#include "manifest/render/stamp.h"
#include "manifest/yaml/emit.h"
#include "util/json_text.h"

namespace kftrain::backend::kube {
namespace {

// The user of the current context (`kubectl config view --minify`), "" when it cannot be read:
// a job is submitted without the label rather than not at all.
std::string kubeconfig_user(KubeQueries& queries) {
    auto result = queries.call({"config", "view", "--minify", "-o", "json"}, false);
    if (!result || !result->ok()) {
        return "";
    }
    const nlohmann::json config = util::parse_untrusted_json(result->out);
    const nlohmann::json& contexts = member(config, "contexts");
    if (!contexts.is_array() || contexts.empty()) {
        return "";
    }
    return string_at(member(contexts.front(), "context"), "user");
}

manifest::JobKind other_kind(manifest::JobKind kind) {
    return kind == manifest::JobKind::TrainJob ? manifest::JobKind::PyTorchJob
                                               : manifest::JobKind::TrainJob;
}

// Make the job the owner of what was applied beside it, once it exists.
util::Status own_companions(KubeQueries& queries, const job::RenderedJob& job,
                            const std::string& ref, const CodeApplied& code,
                            const RuntimeApplied& runtime) {
    if (auto owned = own_code(queries, code, job_owner(job)); !owned) {
        return util::error(fmt::format("{} submitted, but {}: delete removes the code with the "
                                       "job all the same",
                                       ref, owned.error()),
                           k_exit_cluster);
    }
    if (auto owned = own_budget_runtime(queries, runtime, job_owner(job)); !owned) {
        return util::error(fmt::format("{} submitted, but {}: trainingruntime/{} stays when the "
                                       "job is deleted",
                                       ref, owned.error(), runtime.name),
                           k_exit_cluster);
    }
    return util::ok_status();
}

// Check that the namespace will admit the job's pods: its LocalQueue and Kueue (or it stays
// suspended), the ResourceQuotas and the queue's ClusterQueue; their warnings to report.
util::Status check_admission(KubeQueries& queries, const manifest::JobSpec& spec, bool force,
                             job::Reporter& report) {
    std::string cluster_queue;
    if (!spec.queue.empty()) {
        auto queue =
            check_local_queue(queries, spec.namespace_, spec.queue, spec.source.locate("queue"));
        if (!queue) {
            return queue.error_value();
        }
        cluster_queue = *queue;
    }
    auto quota = check_quotas(queries, spec, spec.namespace_, cluster_queue, force);
    if (!quota) {
        return quota.error_value();
    }
    for (const std::string& warning : *quota) {
        report.notes << "kftrain: warning: " << warning << "\n";
    }
    return util::ok_status();
}

}  // namespace

std::string other_kind_hint(manifest::JobKind unserved) {
    manifest::JobKind other = other_kind(unserved);
    // Trainer v2's runtime of the same framework, for a v1 kind other than PyTorchJob.
    const char* runtime = unserved == manifest::JobKind::XGBoostJob ? "xgboost-distributed"
                          : unserved == manifest::JobKind::JAXJob   ? "jax-distributed"
                                                                    : nullptr;
    return fmt::format("this cluster serves {0} ({1}): use --kind {0}{2}",
                       manifest::kind_name(other), kind_provider(other),
                       runtime == nullptr ? "" : fmt::format(" with runtime {}", runtime));
}

util::Result<std::string> submit_job(KubeQueries& queries, const job::RenderedJob& job,
                                     const job::SubmitFlags& flags, job::Reporter& report) {
    if (!flags.env_from_shell.empty()) {
        return util::error(fmt::format("--env-from-shell: only for local runs; on a cluster a "
                                       "replica takes a Secret through secretKeyRef (got {})",
                                       flags.env_from_shell.front()),
                           k_exit_bad_input);
    }
    const manifest::JobKind kind = job.spec.kind;
    const std::string ref = fmt::format("{}/{}", manifest::kind_short_name(kind), job.spec.name);
    if (auto admitted = check_admission(queries, job.spec, flags.force, report); !admitted) {
        return admitted.error_value();
    }
    const bool server_dry_run = flags.dry_run == job::DryRun::Server;
    const auto args = server_side_apply_args(job.spec.namespace_, server_dry_run);
    // The code first: the job's pods mount it as they start. Then a TrainJob's retry budget:
    // the runtime it refers to.
    job::RenderedJob submitted = job;
    auto runtime = apply_budget_runtime(queries, submitted, server_dry_run);
    if (!runtime) {
        return runtime.error_value();
    }
    auto code = create_code(queries, job.code_config_map, server_dry_run);
    if (!code) {
        remove_budget_runtime(queries, *runtime);
        return code.error_value();
    }
    // Who submitted it and what it was estimated to cost, for its record once it has finished.
    manifest::stamp_submission(submitted.manifest, kubeconfig_user(queries), flags.estimated_cost);
    auto result = queries.call(args, false, manifest::to_yaml(submitted.manifest));
    if (!result || !result->ok()) {
        remove_code(queries, *code);
        remove_budget_runtime(queries, *runtime);
    }
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        const std::string action = "submitting " + ref;
        // A TFJob has no Trainer v2 runtime to turn to.
        if (unserved_kind(result->err) == kind && kind != manifest::JobKind::TFJob &&
            queries.serves(other_kind(kind))) {
            return util::error(explain_kubectl_error(result->err, action, other_kind_hint(kind)),
                               k_exit_cluster);
        }
        return util::error(explain_kubectl_error(result->err, action), k_exit_cluster);
    }
    if (server_dry_run) {
        return fmt::format("{} accepted by the server (dry run: nothing created)", ref);
    }
    if (auto owned = own_companions(queries, job, ref, *code, *runtime); !owned) {
        return owned.error_value();
    }
    return ref + " submitted";
}

}  // namespace kftrain::backend::kube
