#include "cli/local/replica_container.h"

#include <fmt/format.h>

#include <set>

namespace kftrain::cli::local {
namespace {

constexpr const char* k_specs = "spec.pytorchReplicaSpecs";
constexpr const char* k_container_name = "pytorch";

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
            out.env[name] = var["value"].Scalar();
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

util::Result<ReplicaContainer> read_container(const YAML::Node& replica_spec,
                                              const std::string& type) {
    const std::string path = fmt::format("{}.{}.template.spec.containers", k_specs, type);
    YAML::Node containers = member(member(member(replica_spec, "template"), "spec"), "containers");
    if (!containers || !containers.IsSequence()) {
        return util::error(fmt::format("{}: missing", path));
    }
    for (const auto& container : containers) {
        if (!container.IsMap() || !container["name"] || !container["name"].IsScalar() ||
            container["name"].Scalar() != k_container_name) {
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
                path, k_container_name));
        }
        out.image =
            container["image"] && container["image"].IsScalar() ? container["image"].Scalar() : "";
        const YAML::Node resources = container["resources"];
        out.has_resources = resources && resources.IsMap() && resources.size() > 0;
        read_mounts(container["volumeMounts"], out);
        return out;
    }
    return util::error(fmt::format("{}: no container named {}", path, k_container_name));
}

}  // namespace

util::Result<std::map<std::string, ReplicaContainer>> read_replica_containers(
    const YAML::Node& manifest) {
    const YAML::Node specs = member(member(manifest, "spec"), "pytorchReplicaSpecs");
    if (!specs || !specs.IsMap()) {
        return util::error(fmt::format("{}: missing", k_specs));
    }
    std::map<std::string, ReplicaContainer> containers;
    for (const auto& entry : specs) {
        const std::string type = entry.first.IsScalar() ? entry.first.Scalar() : "";
        auto container = read_container(entry.second, type);
        if (!container) {
            return container.error_value();
        }
        containers.emplace(type, std::move(*container));
    }
    return containers;
}

std::vector<std::string> ignored_settings(const std::map<std::string, ReplicaContainer>& containers,
                                          const std::vector<manifest::Volume>& volumes) {
    std::set<std::string> mapped;
    for (const auto& volume : volumes) {
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
        if (!container.image.empty()) {
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

}  // namespace kftrain::cli::local
