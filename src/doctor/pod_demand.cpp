#include "doctor/pod_demand.h"

#include <fmt/format.h>

#include <algorithm>

#include "manifest/job_kind.h"
#include "manifest/k8s/quantity.h"
#include "manifest/render/template_values.h"
#include "util/text.h"

namespace kftrain::doctor {
namespace {

using nlohmann::json;

// The init container the Training Operator gives a PyTorchJob's Workers (initcontainer.go's
// defaults: it waits until the Master's name resolves).
ContainerAsk pytorch_init_container() {
    return {{{"cpu", 0.05}, {"memory", 10.0 * 1024 * 1024}},
            {{"cpu", 0.1}, {"memory", 20.0 * 1024 * 1024}}};
}

Amounts amounts_of(const YAML::Node& map) {
    Amounts out;
    if (!map.IsMap()) {
        return out;
    }
    for (const auto& entry : map) {
        if (auto value = manifest::parse_quantity(entry.second.as<std::string>())) {
            out[entry.first.as<std::string>()] = *value;
        }
    }
    return out;
}

// The job's one container, as the renderer writes its resources; the API server then sets an
// unset request to its limit.
ContainerAsk main_container(const manifest::JobSpec& spec) {
    const YAML::Node resources = manifest::template_values(spec)["resources"];
    ContainerAsk ask;
    if (resources.IsMap()) {
        ask.requests = amounts_of(resources["requests"]);
        ask.limits = amounts_of(resources["limits"]);
    }
    for (const auto& [name, value] : ask.limits) {
        ask.requests.emplace(name, value);
    }
    return ask;
}

}  // namespace

Amounts read_amounts(const json& object, const std::string& where,
                     std::vector<std::string>& notes) {
    Amounts out;
    if (!object.is_object()) {
        return out;
    }
    for (const auto& [name, value] : object.items()) {
        auto amount = value.is_string()
                          ? manifest::read_quantity(value.get<std::string>())
                          : util::Result<double>(util::error(manifest::k_quantity_expected));
        if (amount) {
            out[name] = *amount;
        } else {
            notes.push_back(fmt::format("{} {} unreadable: {}", where, util::escape_line(name),
                                        amount.error()));
        }
    }
    return out;
}

JobFootprint job_footprint(const manifest::JobSpec& spec) {
    JobFootprint out;
    const ContainerAsk main = main_container(spec);
    const int replicas = std::max(spec.replicas, 0);
    const auto group = [&](const std::string& role, int count) {
        if (count > 0) {
            out.pods.push_back({role, count, {main}, {}, spec.priority_class_name});
        }
    };
    switch (spec.kind) {
        case manifest::JobKind::PyTorchJob:
            group("Master", std::min(replicas, 1));
            group("Worker", replicas - 1);
            if (out.pods.size() == 2) {
                out.pods.back().init_containers.push_back(pytorch_init_container());
            }
            break;
        case manifest::JobKind::XGBoostJob:
            group("Master", std::min(replicas, 1));
            group("Worker", replicas - 1);
            break;
        case manifest::JobKind::TrainJob:
            group("node", replicas);
            break;
        default:
            group("Worker", replicas);
            break;
    }
    out.objects[manifest::kind_resource(spec.kind)] = 1;
    if (spec.kind == manifest::JobKind::TrainJob) {  // JobSet: one Job, one headless Service
        out.objects["jobsets.jobset.x-k8s.io"] = 1;
        out.objects["jobs.batch"] = 1;
        out.objects["services"] = 1;
    } else {  // the operator: a Service per replica
        out.objects["services"] = replicas;
    }
    if (!spec.code.path.empty()) {
        out.objects["configmaps"] = 1;
    }
    return out;
}

ContainerDefaults read_container_defaults(const json& list, std::vector<std::string>& notes) {
    ContainerDefaults out;
    const json* items = list.is_object() && list.contains("items") ? &list["items"] : nullptr;
    if (items == nullptr || !items->is_array()) {
        return out;
    }
    for (const auto& item : *items) {
        if (!item.is_object() || item.value("kind", "") != "LimitRange" || !item.contains("spec") ||
            !item["spec"].is_object()) {
            continue;
        }
        const std::string name =
            util::escape_line(item.contains("metadata") && item["metadata"].is_object()
                                  ? item["metadata"].value("name", std::string())
                                  : std::string());
        const json& limits = item["spec"].contains("limits") ? item["spec"]["limits"] : json();
        for (const auto& limit : limits.is_array() ? limits : json::array()) {
            if (!limit.is_object() || limit.value("type", "") != "Container") {
                continue;
            }
            const std::string where = "LimitRange " + name;
            if (std::find(out.names.begin(), out.names.end(), name) == out.names.end()) {
                out.names.push_back(name);
            }
            for (const auto& [key, value] :
                 read_amounts(limit.value("max", json()), where + " max", notes)) {
                auto [at, added] = out.max.emplace(key, value);
                at->second = std::min(at->second, value);  // the strictest holds
            }
            // Two LimitRanges that both default a resource: the API server applies them in
            // turn, so the first one's value stays.
            for (const auto& [key, value] :
                 read_amounts(limit.value("default", json()), where + " default", notes)) {
                out.limits.emplace(key, value);
            }
            for (const auto& [key, value] : read_amounts(limit.value("defaultRequest", json()),
                                                         where + " defaultRequest", notes)) {
                out.requests.emplace(key, value);
            }
        }
    }
    return out;
}

JobFootprint with_defaults(JobFootprint footprint, const ContainerDefaults& defaults) {
    const auto fill = [&](ContainerAsk& container) {
        for (const auto& [name, value] : defaults.limits) {
            container.limits.emplace(name, value);
        }
        for (const auto& [name, value] : defaults.requests) {
            container.requests.emplace(name, value);
        }
    };
    for (auto& group : footprint.pods) {
        std::for_each(group.containers.begin(), group.containers.end(), fill);
        std::for_each(group.init_containers.begin(), group.init_containers.end(), fill);
    }
    return footprint;
}

ContainerAsk pod_ask(const PodGroup& group) {
    ContainerAsk pod;
    for (const auto& container : group.containers) {
        for (const auto& [name, value] : container.requests) {
            pod.requests[name] += value;
        }
        for (const auto& [name, value] : container.limits) {
            pod.limits[name] += value;
        }
    }
    for (const auto& init : group.init_containers) {
        for (const auto& [name, value] : init.requests) {
            pod.requests[name] = std::max(pod.requests[name], value);
        }
        for (const auto& [name, value] : init.limits) {
            pod.limits[name] = std::max(pod.limits[name], value);
        }
    }
    return pod;
}

Amounts job_requests(const JobFootprint& footprint) {
    Amounts total;
    for (const auto& group : footprint.pods) {
        for (const auto& [name, value] : pod_ask(group).requests) {
            total[name] += group.count * value;
        }
        total["pods"] += group.count;
    }
    return total;
}

bool best_effort(const PodGroup& group) {
    const auto asks = [](const ContainerAsk& c) {
        for (const char* name : {"cpu", "memory"}) {
            if (c.requests.count(name) != 0 || c.limits.count(name) != 0) {
                return true;
            }
        }
        return false;
    };
    return std::none_of(group.containers.begin(), group.containers.end(), asks) &&
           std::none_of(group.init_containers.begin(), group.init_containers.end(), asks);
}

}  // namespace kftrain::doctor
