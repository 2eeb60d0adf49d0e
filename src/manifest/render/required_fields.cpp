#include "manifest/render/required_fields.h"

#include <fmt/format.h>

#include "manifest/framework.h"
#include "manifest/yaml/input.h"
#include "manifest/yaml/node_check.h"
#include "util/text.h"

namespace kftrain::manifest {
namespace {

using util::error;

// yaml-cpp: a missing key of a const map is an invalid node that throws on IsScalar() and
// the like, so every test starts with IsDefined(). Nodes are re-pointed with reset(): `=`
// would write into the document.
bool is_placeholder(const YAML::Node& node) {
    return node.IsDefined() && node.IsScalar() && node.Scalar().find("{{") != std::string::npos;
}

// Step from node along one part of a path: a map key, or "containers[pytorch]": the item
// of the list at containers whose name is pytorch. An undefined node when there is none.
YAML::Node step(const YAML::Node& node, const std::string& part) {
    if (!node.IsDefined() || !node.IsMap()) {
        return YAML::Node(YAML::NodeType::Undefined);
    }
    size_t bracket = part.find('[');
    const YAML::Node child = node[part.substr(0, bracket)];
    if (!child.IsDefined()) {
        return YAML::Node(YAML::NodeType::Undefined);
    }
    if (bracket == std::string::npos) {
        return child;
    }
    if (!child.IsSequence()) {
        return YAML::Node(YAML::NodeType::Undefined);
    }
    const std::string name = part.substr(bracket + 1, part.size() - bracket - 2);
    for (const auto& item : child) {
        const YAML::Node item_name = item.IsMap() ? item["name"] : YAML::Node();
        if (item_name.IsDefined() && item_name.IsScalar() && item_name.Scalar() == name) {
            return item;
        }
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

// The list item standing where a named item is missing: one whose name, or itself, is a
// placeholder.
YAML::Node placeholder_item(const YAML::Node& node, const std::string& part) {
    size_t bracket = part.find('[');
    if (bracket == std::string::npos || !node.IsDefined() || !node.IsMap()) {
        return YAML::Node(YAML::NodeType::Undefined);
    }
    const YAML::Node list = node[part.substr(0, bracket)];
    if (!list.IsDefined() || !list.IsSequence()) {
        return list;  // the list itself may be a placeholder
    }
    for (const auto& item : list) {
        if (is_placeholder(item)) {
            return item;
        }
        if (item.IsMap() && is_placeholder(item["name"])) {
            return item["name"];
        }
    }
    return YAML::Node(YAML::NodeType::Undefined);
}

// Follow a path through a document as far as it goes; returns the last node reached, or
// the first placeholder on the way.
YAML::Node follow(const YAML::Node& root, const std::vector<std::string>& parts) {
    YAML::Node at = root;
    for (const auto& part : parts) {
        if (is_placeholder(at)) {
            return at;
        }
        YAML::Node next = step(at, part);
        if (!next.IsDefined()) {
            YAML::Node stand_in = placeholder_item(at, part);
            return stand_in.IsDefined() && is_placeholder(stand_in) ? stand_in : at;
        }
        at.reset(next);
    }
    return at;
}

YAML::Node at_path(const YAML::Node& root, const std::vector<std::string>& parts) {
    YAML::Node node = root;
    for (const auto& part : parts) {
        node.reset(step(node, part));
    }
    return node;
}

// What the built-in template has at a path, as " (the built-in template has X there)".
std::string built_in_hint(JobKind kind, const std::vector<std::string>& parts) {
    auto parsed = parse_yaml(default_template(kind).text, "built-in");
    if (!parsed) {
        return "";
    }
    YAML::Node exact = at_path(*parsed, parts);
    if (!exact.IsDefined() || !exact.IsScalar()) {
        return "";
    }
    return fmt::format(" (the built-in template has {} there)", exact.Scalar());
}

// Where a missing path went: "t.yaml:31" and why, or "t.yaml" and that it was never set.
std::pair<std::string, std::string> explain_missing(const Template& tmpl,
                                                    const std::vector<std::string>& parts) {
    const std::string& template_name = tmpl.name;
    auto parsed = parse_yaml(tmpl.text, tmpl.name);  // rendered from it, so it parses
    YAML::Node culprit = parsed ? follow(*parsed, parts) : YAML::Node();
    if (is_placeholder(culprit)) {
        return {fmt::format("{}:{}", template_name, culprit.Mark().line + 1),
                fmt::format("{} there leaves it out for this job", culprit.Scalar())};
    }
    return {template_name, "the template does not set it"};
}

// A PyTorchJob or XGBoostJob has exactly one Master, a TFJob at most one Chief: the operator's
// webhook refuses any other count (webhooks/xgboost validateXGBReplicaSpecs, "must be 1"); left
// out, it defaults to 1.
util::Status check_one_master(const YAML::Node& rendered, const Template& tmpl,
                              const JobSpec& spec) {
    const OperatorKind& v1 = operator_kind(spec.kind);
    if (!is_operator_kind(spec.kind) || v1.master_type == nullptr) {
        return util::ok_status();
    }
    const std::vector<std::string> parts = {"spec", v1.replica_specs, v1.master_type, "replicas"};
    const YAML::Node replicas = at_path(rendered, parts);
    if (!replicas.IsDefined() || (replicas.IsScalar() && replicas.Scalar() == "1")) {
        return util::ok_status();
    }
    return error(
        fmt::format("{}: the rendered {}'s spec.{}.{}.replicas must be 1: the "
                    "operator refuses a job without exactly one {} (got {})",
                    tmpl.name, kind_name(spec.kind), v1.replica_specs, v1.master_type,
                    v1.master_type, describe_value(replicas)));
}

}  // namespace

std::vector<std::string> required_paths(const JobSpec& spec) {
    if (spec.kind == JobKind::TrainJob) {
        // No image: the runtime's (a job that ships code and names none, docs/code.md).
        if (spec.image.empty()) {
            return {"apiVersion", "metadata.name", "spec.runtimeRef.name", "spec.trainer.numNodes"};
        }
        return {"apiVersion", "metadata.name", "spec.runtimeRef.name", "spec.trainer.image",
                "spec.trainer.numNodes"};
    }
    std::vector<std::string> paths = {"apiVersion", "metadata.name"};
    const OperatorKind& v1 = operator_kind(spec.kind);
    for (const auto& [type, count] : replica_types(spec)) {
        const std::string at = fmt::format("spec.{}.{}.", v1.replica_specs, type);
        if (type == v1.worker_type) {
            paths.push_back(at + "replicas");
        }
        paths.push_back(fmt::format("{}template.spec.containers[{}].image", at, v1.container));
    }
    return paths;
}

util::Status check_required_fields(const YAML::Node& rendered, const Template& tmpl,
                                   const JobSpec& spec) {
    const std::string& template_name = tmpl.name;
    const char* kind = kind_name(spec.kind);
    for (const auto& path : required_paths(spec)) {
        std::vector<std::string> parts = util::split(path, '.');  // our own paths: no spaces
        YAML::Node node = at_path(rendered, parts);
        if (!node.IsDefined() || node.IsNull()) {
            auto [where, why] = explain_missing(tmpl, parts);
            return error(fmt::format("{}: the rendered {} has no {}, which it needs: {}{}", where,
                                     kind, path, why, built_in_hint(spec.kind, parts)));
        }
        if (!node.IsScalar() || node.Scalar().empty()) {
            return error(fmt::format("{}: the rendered {}'s {} must be a non-empty value (got {})",
                                     template_name, kind, path, describe_value(node)));
        }
    }
    if (auto one = check_one_master(rendered, tmpl, spec); !one) {
        return one;
    }
    const std::string api_version = rendered["apiVersion"].Scalar();
    if (api_version != kind_api_version(spec.kind)) {
        return error(fmt::format("{}: apiVersion must be {} for a {} (got {})", template_name,
                                 kind_api_version(spec.kind), kind, api_version));
    }
    return util::ok_status();
}

}  // namespace kftrain::manifest
