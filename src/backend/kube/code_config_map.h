#pragma once

// The ConfigMap holding the folder a job ships (code, docs/code.md) on a cluster: created
// before the job (or a search's Experiment), owned by it once it exists, removed with it.

#include <yaml-cpp/yaml.h>

#include <string>

#include "backend/kube/owner.h"
#include "backend/kube/queries.h"
#include "load/job_input.h"
#include "manifest/code.h"
#include "util/result.h"

namespace kftrain::backend::kube {

// What create_code did, for a submit that then fails.
struct CodeApplied {
    std::string name;      // the ConfigMap's; "" when nothing ships code
    bool created = false;  // it did not exist before
};

// Create a code ConfigMap (manifest::code_config_map's; nothing for a null node) in its own
// namespace; with dry_run_server, only as a server-side dry run.
util::Result<CodeApplied> create_code(KubeQueries& queries, const YAML::Node& config_map,
                                      bool dry_run_server);

// Make owner the ConfigMap's owner, so that the garbage collector removes it with the owner.
util::Status own_code(KubeQueries& queries, const CodeApplied& code, const Owner& owner);

// Remove a ConfigMap create_code created for something that could not be submitted.
void remove_code(KubeQueries& queries, const CodeApplied& code);

// Delete the code ConfigMaps of a job or a search (by their kftrain.io/code-of and
// kftrain.io/code-for labels: never the other's of the same name), without waiting; an error
// names what kubectl said.
util::Status delete_code(KubeQueries& queries, const manifest::CodeOwner& owner);

}  // namespace kftrain::backend::kube
