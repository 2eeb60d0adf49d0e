#include "backend/kube/json_fields.h"

#include <fmt/format.h>

#include <cmath>

#include "job/exit_codes.h"
#include "manifest/k8s/quantity.h"
#include "util/json_text.h"

namespace kftrain::backend::kube {

util::Result<nlohmann::json> parse_json_object(const std::string& text) {
    nlohmann::json parsed = util::parse_untrusted_json(text);
    if (parsed.is_discarded() && util::json_nests_deeper_than(text)) {
        return util::error(fmt::format("kubectl printed JSON nested deeper than {} levels, which "
                                       "no Kubernetes object is",
                                       util::k_max_json_depth),
                           k_exit_cluster);
    }
    if (parsed.is_discarded() || !parsed.is_object()) {
        return util::error("kubectl printed something that is not a JSON object", k_exit_cluster);
    }
    return parsed;
}

const nlohmann::json& training_container(const nlohmann::json& containers,
                                         const std::string& name) {
    static const nlohmann::json k_null;
    if (!containers.is_array() || containers.empty()) {
        return k_null;
    }
    for (const auto& container : containers) {
        if (string_at(container, "name") == name) {
            return container;
        }
    }
    return containers.front();
}

double quantity_at(const nlohmann::json& list, const char* key) {
    const nlohmann::json& value = member(list, key);
    if (value.is_number()) {
        // The bounds read_quantity keeps a text to: a count past 2^63 is none (and no cast of
        // it to an integer is defined).
        const double number = value.get<double>();
        return std::isfinite(number) && std::fabs(number) < 9223372036854775808.0 ? number : 0.0;
    }
    return value.is_string() ? manifest::parse_quantity(value.get<std::string>()).value_or(0.0)
                             : 0.0;
}

job::ReplicaRequest replica_request(const std::string& type, int replicas,
                                    const nlohmann::json& resources) {
    const nlohmann::json& requests = member(resources, "requests");
    const nlohmann::json& limits = member(resources, "limits");
    auto either = [&](const char* key) {
        const double requested = quantity_at(requests, key);
        return requested > 0 ? requested : quantity_at(limits, key);
    };
    job::ReplicaRequest request;
    request.type = type;
    request.replicas = replicas;
    request.cpu_cores = either("cpu");
    request.memory_bytes = either("memory");
    request.gpus = static_cast<int>(either("nvidia.com/gpu"));
    return request;
}

void copy_strings(const nlohmann::json& object, std::map<std::string, std::string>& out) {
    if (!object.is_object()) {
        return;
    }
    for (const auto& [key, value] : object.items()) {
        if (value.is_string()) {
            out[key] = value.get<std::string>();
        }
    }
}

void read_job_metadata(const nlohmann::json& metadata, job::JobStatus& status) {
    status.name = string_at(metadata, "name");
    status.namespace_ = string_at(metadata, "namespace");
    status.uid = string_at(metadata, "uid");
    status.created = string_at(metadata, "creationTimestamp");
    copy_strings(member(metadata, "labels"), status.labels);
    copy_strings(member(metadata, "annotations"), status.annotations);
}

}  // namespace kftrain::backend::kube
