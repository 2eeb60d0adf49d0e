#include "usage/pod_resources.h"

#include <algorithm>
#include <set>
#include <vector>

#include "manifest/k8s/quantity.h"
#include "util/json_fields.h"

namespace kftrain::usage {
namespace {

using nlohmann::json;
using util::member;
using util::string_at;

// Read one map of quantities ({"cpu": "500m"}); what is no quantity is left out.
Amounts quantity_map(const json& map) {
    Amounts out;
    if (!map.is_object()) {
        return out;
    }
    for (const auto& [name, value] : map.items()) {  // an object: items() has keys
        if (!value.is_string()) {
            continue;
        }
        if (auto parsed = manifest::parse_quantity(value.get<std::string>())) {
            out[name] = *parsed;
        }
    }
    return out;
}

// The sum of what containers ask (requests or limits, by field); with every_one, a resource
// only when each container names it.
Amounts container_sum(const std::vector<const json*>& containers, const char* field,
                      bool every_one) {
    Amounts sum;
    std::map<std::string, size_t> named;
    for (const json* container : containers) {
        for (const auto& [name, amount] :
             quantity_map(member(member(*container, "resources"), field))) {
            sum[name] += amount;
            ++named[name];
        }
    }
    if (every_one) {
        for (const auto& [name, count] : named) {
            if (count < containers.size()) {
                sum.erase(name);
            }
        }
    }
    return sum;
}

Amounts effective_resources(const json& spec, const char* field, bool every_one) {
    std::vector<const json*> running;  // app containers and sidecars
    std::vector<const json*> init;     // init containers that end before the app starts
    const json& containers = member(spec, "containers");
    if (containers.is_array()) {
        for (const json& c : containers) {
            running.push_back(&c);
        }
    }
    const json& inits = member(spec, "initContainers");
    if (inits.is_array()) {
        for (const json& c : inits) {
            (string_at(c, "restartPolicy") == "Always" ? running : init).push_back(&c);
        }
    }
    Amounts out = container_sum(running, field, every_one);
    for (const json* c : init) {
        const Amounts one = container_sum({c}, field, false);
        for (auto& [name, amount] : out) {
            auto it = one.find(name);
            amount = std::max(amount, it == one.end() ? 0.0 : it->second);
        }
        if (!every_one) {
            for (const auto& [name, amount] : one) {
                out.emplace(name, amount);  // a resource only an init container asks for
            }
        }
    }
    for (auto& [name, amount] : quantity_map(member(spec, "overhead"))) {
        if (!every_one || out.count(name) > 0) {
            out[name] += amount;
        }
    }
    return out;
}

}  // namespace

PodResources pod_resources(const json& pod) {
    const json& spec = member(pod, "spec");
    return PodResources{effective_resources(spec, "requests", false),
                        effective_resources(spec, "limits", true)};
}

bool pod_holds_resources(const json& pod) {
    const std::string phase = string_at(member(pod, "status"), "phase");
    return !string_at(member(pod, "spec"), "nodeName").empty() && phase != "Succeeded" &&
           phase != "Failed";
}

bool oom_risk(std::optional<double> working_set, std::optional<double> limit) {
    return working_set && limit && *limit > 0 && *working_set >= k_oom_risk_share * *limit;
}

std::optional<double> amount_of(const Amounts& amounts, const std::string& name) {
    auto it = amounts.find(name);
    return it == amounts.end() ? std::nullopt : std::optional<double>(it->second);
}

}  // namespace kftrain::usage
