#include "backend/local/process/replica_container.h"

#include <fmt/format.h>

#include <set>

#include "manifest/code.h"
#include "manifest/job_kind.h"
#include "manifest/k8s/expansion.h"

namespace kftrain::backend::local {
namespace {

constexpr const char* k_node = "node";  // Trainer v2's replicated job and container

// Return the member key of node, or an undefined node when node is not a map (a custom
// template may put anything anywhere; yaml-cpp throws on a subscript of a scalar).
YAML::Node member(const YAML::Node& node, const char* key) {
    return node && node.IsMap() ? node[key] : YAML::Node(YAML::NodeType::Undefined);
}

// Append a sequence of strings (command or args) to argv; an error names the path.
util::Status append_strings(const YAML::Node& list, const std::string& path,
                            std::vector<std::string>& argv) {
    if (!list) {
        return util::ok_status();
    }
    if (!list.IsSequence()) {
        return util::error(fmt::format("{}: must be a list of strings", path));
    }
    for (const auto& item : list) {
        if (!item.IsScalar()) {
            return util::error(fmt::format("{}: must be a list of strings", path));
        }
        argv.push_back(item.Scalar());
    }
    return util::ok_status();
}

util::Status read_env(const YAML::Node& env, const std::string& path, ReplicaContainer& out) {
    if (!env) {
        return util::ok_status();
    }
    if (!env.IsSequence()) {
        return util::error(fmt::format("{}: must be a list of variables", path));
    }
    for (const auto& var : env) {
        if (!var.IsMap() || !var["name"] || !var["name"].IsScalar()) {
            return util::error(fmt::format("{}: every variable needs a name", path));
        }
        const std::string name = var["name"].Scalar();
        if (var["valueFrom"]) {
            out.env_not_set.push_back(name);
        } else if (var["value"] && var["value"].IsScalar()) {
            // $(NAME) of a variable listed before this one, as the kubelet expands values.
            out.env[name] = manifest::expand_references(var["value"].Scalar(), out.env);
        } else {
            out.env[name] = "";
        }
    }
    return util::ok_status();
}

void read_mounts(const YAML::Node& mounts, ReplicaContainer& out) {
    if (!mounts || !mounts.IsSequence()) {
        return;
    }
    for (const auto& mount : mounts) {
        if (mount.IsMap() && mount["name"] && mount["name"].IsScalar()) {
            std::string path = mount["mountPath"] && mount["mountPath"].IsScalar()
                                   ? mount["mountPath"].Scalar()
                                   : "";
            out.mounts.emplace_back(mount["name"].Scalar(), path);
        }
    }
}

// Read what a v1 replica type runs: the container the operator sets its env in.
util::Result<ReplicaContainer> read_container(const YAML::Node& replica_spec,
                                              const std::string& type,
                                              const manifest::OperatorKind& v1) {
    const std::string path =
        fmt::format("spec.{}.{}.template.spec.containers", v1.replica_specs, type);
    const std::string container_name = v1.container;
    YAML::Node containers = member(member(member(replica_spec, "template"), "spec"), "containers");
    if (!containers || !containers.IsSequence()) {
        return util::error(fmt::format("{}: missing", path));
    }
    for (const auto& container : containers) {
        if (!container.IsMap() || !container["name"] || !container["name"].IsScalar() ||
            container["name"].Scalar() != container_name) {
            continue;
        }
        ReplicaContainer out;
        auto command = append_strings(container["command"], path + ".command", out.argv);
        auto args = append_strings(container["args"], path + ".args", out.argv);
        auto env = read_env(container["env"], path + ".env", out);
        for (const util::Status* read : {&command, &args, &env}) {
            if (!*read) {
                return read->error_value();
            }
        }
        if (out.argv.empty()) {
            return util::error(fmt::format(
                "{}: the {} container has no command; locally it cannot run the image's "
                "entrypoint",
                path, container_name));
        }
        out.image =
            container["image"] && container["image"].IsScalar() ? container["image"].Scalar() : "";
        const YAML::Node resources = container["resources"];
        out.has_resources = resources && resources.IsMap() && resources.size() > 0;
        read_mounts(container["volumeMounts"], out);
        return out;
    }
    return util::error(fmt::format("{}: no container named {}", path, container_name));
}

// Add the volumeMounts that the TrainJob's runtimePatches give the node container.
void read_patched_mounts(const YAML::Node& patches, ReplicaContainer& out) {
    if (!patches || !patches.IsSequence()) {
        return;
    }
    for (const auto& patch : patches) {
        const YAML::Node jobs =
            member(member(member(member(patch, "trainingRuntimeSpec"), "template"), "spec"),
                   "replicatedJobs");
        if (!jobs || !jobs.IsSequence()) {
            continue;
        }
        for (const auto& job : jobs) {
            const YAML::Node name = member(job, "name");
            if (!name || !name.IsScalar() || name.Scalar() != k_node) {
                continue;
            }
            const YAML::Node containers =
                member(member(member(member(member(job, "template"), "spec"), "template"), "spec"),
                       "containers");
            if (!containers || !containers.IsSequence()) {
                continue;
            }
            for (const auto& container : containers) {
                const YAML::Node cname = member(container, "name");
                if (cname && cname.IsScalar() && cname.Scalar() == k_node) {
                    read_mounts(member(container, "volumeMounts"), out);
                }
            }
        }
    }
}

// Read what a TrainJob's nodes run: spec.trainer (command, args, env, image, resources).
util::Result<ReplicaContainer> read_trainer(const YAML::Node& manifest) {
    const YAML::Node spec = member(manifest, "spec");
    const YAML::Node trainer = member(spec, "trainer");
    if (!trainer || !trainer.IsMap()) {
        return util::error("spec.trainer: missing");
    }
    ReplicaContainer out;
    auto command = append_strings(trainer["command"], "spec.trainer.command", out.argv);
    auto args = append_strings(trainer["args"], "spec.trainer.args", out.argv);
    auto env = read_env(trainer["env"], "spec.trainer.env", out);
    for (const util::Status* read : {&command, &args, &env}) {
        if (!*read) {
            return read->error_value();
        }
    }
    if (!trainer["command"] || out.argv.empty()) {
        return util::error(
            "spec.trainer.command: missing; locally the runtime's image entrypoint cannot run");
    }
    out.image = trainer["image"] && trainer["image"].IsScalar() ? trainer["image"].Scalar() : "";
    const YAML::Node resources = trainer["resourcesPerNode"];
    out.has_resources = resources && resources.IsMap() && resources.size() > 0;
    read_patched_mounts(member(spec, "runtimePatches"), out);
    return out;
}

}  // namespace

util::Result<std::map<std::string, ReplicaContainer>> read_replica_containers(
    const YAML::Node& manifest) {
    const YAML::Node kind = member(manifest, "kind");
    if (kind && kind.IsScalar() && kind.Scalar() == "TrainJob") {
        auto node = read_trainer(manifest);
        if (!node) {
            return node.error_value();
        }
        return std::map<std::string, ReplicaContainer>{{"Node", std::move(*node)}};
    }
    const auto v1_kind = kind && kind.IsScalar() ? manifest::parse_kind(kind.Scalar())
                                                 : std::optional<manifest::JobKind>();
    const manifest::OperatorKind& v1 =
        manifest::operator_kind(v1_kind.value_or(manifest::JobKind::PyTorchJob));
    const YAML::Node specs = member(member(manifest, "spec"), v1.replica_specs);
    if (!specs || !specs.IsMap()) {
        return util::error(fmt::format("spec.{}: missing", v1.replica_specs));
    }
    std::map<std::string, ReplicaContainer> containers;
    for (const auto& entry : specs) {
        const std::string type = entry.first.IsScalar() ? entry.first.Scalar() : "";
        auto container = read_container(entry.second, type, v1);
        if (!container) {
            return container.error_value();
        }
        containers.emplace(type, std::move(*container));
    }
    return containers;
}

std::vector<std::string> ignored_settings(const std::map<std::string, ReplicaContainer>& containers,
                                          const manifest::JobSpec& spec) {
    std::set<std::string> mapped = {manifest::k_code_volume};
    for (const auto& volume : spec.volumes) {
        if (!volume.local_path.empty()) {
            mapped.insert(volume.name);
        }
    }
    std::vector<std::string> ignored;
    auto add = [&ignored](std::string phrase) {
        for (const auto& seen : ignored) {
            if (seen == phrase) {
                return;
            }
        }
        ignored.push_back(std::move(phrase));
    };
    for (const auto& [type, container] : containers) {
        if (!container.image.empty() && spec.source.given("image")) {
            add("image " + container.image);
        }
        if (container.has_resources) {
            add("resources");
        }
    }
    for (const auto& [type, container] : containers) {
        for (const auto& [name, mount_path] : container.mounts) {
            if (mapped.count(name) == 0) {
                add(fmt::format("volume {} (no localPath)", name));
            }
        }
    }
    return ignored;
}

}  // namespace kftrain::backend::local
