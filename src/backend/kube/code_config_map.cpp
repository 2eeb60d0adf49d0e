#include "backend/kube/code_config_map.h"

#include <fmt/format.h>

#include "backend/kube/kubectl_errors.h"
#include "job/exit_codes.h"
#include "manifest/code.h"
#include "manifest/yaml/emit.h"
#include "util/text.h"

namespace kftrain::backend::kube {

// Created, never applied: a client-side apply copies the whole ConfigMap into its
// last-applied annotation, and annotations hold 256 KiB, a quarter of what the ConfigMap
// does. Its name is its content and it is immutable, so one that exists already holds
// these very files.
util::Result<CodeApplied> create_code(KubeQueries& queries, const YAML::Node& config_map,
                                      bool dry_run_server) {
    if (!config_map || config_map.IsNull()) {
        return CodeApplied{};
    }
    CodeApplied applied;
    applied.name = config_map["metadata"]["name"].as<std::string>();
    std::vector<std::string> args = {"create", "-f", "-", "--namespace",
                                     config_map["metadata"]["namespace"].as<std::string>()};
    if (dry_run_server) {
        args.push_back("--dry-run=server");
    }
    auto result = queries.call(args, false, manifest::to_yaml(config_map));
    if (!result) {
        return result.error_value();
    }
    if (!result->ok() && result->err.find("(AlreadyExists)") != std::string::npos) {
        return applied;  // not created: what mounts it cannot take it away
    }
    if (!result->ok()) {
        return util::error(explain_kubectl_error(result->err, "creating configmap/" + applied.name +
                                                                  " (the code it ships)"),
                           k_exit_cluster);
    }
    applied.created = !dry_run_server;
    return applied;
}

util::Status own_code(KubeQueries& queries, const CodeApplied& code, const Owner& owner) {
    if (code.name.empty()) {
        return util::ok_status();
    }
    return add_owner(queries, "configmap", code.name, nullptr, owner);  // named for its owner
}

void remove_code(KubeQueries& queries, const CodeApplied& code) {
    if (code.created) {
        (void)queries.call(
            {"delete", "configmap", code.name, "--ignore-not-found", "--wait=false"});
    }
}

util::Status delete_code(KubeQueries& queries, const manifest::CodeOwner& owner) {
    // Both labels: a job and a search of one name each remove only their own.
    auto deleted = queries.run({"delete", "configmap", "-l", manifest::code_owner_selector(owner),
                                "--ignore-not-found", "--wait=false"},
                               "deleting the code of " + owner.name);
    if (!deleted) {
        return deleted.error_value();
    }
    return util::ok_status();
}

}  // namespace kftrain::backend::kube
