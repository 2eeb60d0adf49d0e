#include "backend/kube/code_config_map.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backend/kube/kubectl_errors.h"
#include "job/exit_codes.h"
#include "manifest/code.h"
#include "manifest/yaml/emit.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::backend::kube {

util::Result<CodeApplied> apply_code(KubeQueries& queries, const job::RenderedJob& job,
                                     bool dry_run_server) {
    if (!job.code) {
        return CodeApplied{};
    }
    CodeApplied applied;
    applied.name = manifest::code_config_map_name(job.spec.name, job.code->hash);
    std::vector<std::string> args = {"apply", "-f", "-", "--namespace", job.spec.namespace_};
    if (dry_run_server) {
        args.push_back("--dry-run=server");
    }
    auto result = queries.call(args, false, manifest::to_yaml(job.code_config_map));
    if (!result) {
        return result.error_value();
    }
    if (!result->ok()) {
        return util::error(explain_kubectl_error(result->err, "creating configmap/" + applied.name +
                                                                  " (the job's code)"),
                           k_exit_cluster);
    }
    // "configmap/x created", "configmap/x unchanged" or "... configured": only a new one is
    // removed when the job cannot be submitted.
    applied.created = !dry_run_server && result->out.find(" created") != std::string::npos;
    return applied;
}

util::Status own_code(KubeQueries& queries, const job::RenderedJob& job, const CodeApplied& code) {
    if (code.name.empty()) {
        return util::ok_status();
    }
    const manifest::JobKind kind = job.spec.kind;
    auto uid = queries.run(
        {"get", manifest::kind_resource(kind), job.spec.name, "-o", "jsonpath={.metadata.uid}"},
        "reading the uid of " + job.spec.name);
    if (!uid) {
        return uid.error_value();
    }
    nlohmann::json owner = {{"apiVersion", manifest::kind_api_version(kind)},
                            {"kind", manifest::kind_name(kind)},
                            {"name", job.spec.name},
                            {"uid", util::trim(*uid)},
                            {"blockOwnerDeletion", false}};
    nlohmann::json patch = {{"metadata", {{"ownerReferences", nlohmann::json::array({owner})}}}};
    auto patched = queries.run(
        {"patch", "configmap", code.name, "--type", "merge", "-p", util::json_text(patch)},
        "making " + job.spec.name + " the owner of configmap/" + code.name);
    if (!patched) {
        return patched.error_value();
    }
    return util::ok_status();
}

void remove_code(KubeQueries& queries, const CodeApplied& code) {
    if (code.created) {
        (void)queries.call(
            {"delete", "configmap", code.name, "--ignore-not-found", "--wait=false"});
    }
}

util::Status delete_code(KubeQueries& queries, const std::string& job_name) {
    auto deleted = queries.run(
        {"delete", "configmap", "-l", fmt::format("{}={}", manifest::k_code_of_label, job_name),
         "--ignore-not-found", "--wait=false"},
        "deleting the code of " + job_name);
    if (!deleted) {
        return deleted.error_value();
    }
    return util::ok_status();
}

}  // namespace kftrain::backend::kube
