#include "cli/kube/json_fields.h"

namespace kftrain::cli::kube {

const nlohmann::json& member(const nlohmann::json& object, const char* key) {
    static const nlohmann::json k_null;
    if (!object.is_object()) {
        return k_null;
    }
    auto it = object.find(key);
    return it == object.end() ? k_null : *it;
}

std::string string_at(const nlohmann::json& object, const char* key) {
    const nlohmann::json& value = member(object, key);
    return value.is_string() ? value.get<std::string>() : "";
}

int int_at(const nlohmann::json& object, const char* key) {
    const nlohmann::json& value = member(object, key);
    return value.is_number_integer() ? value.get<int>() : 0;
}

const nlohmann::json& training_container(const nlohmann::json& containers) {
    static const nlohmann::json k_null;
    if (!containers.is_array() || containers.empty()) {
        return k_null;
    }
    for (const auto& container : containers) {
        if (string_at(container, "name") == "pytorch") {
            return container;
        }
    }
    return containers.front();
}

}  // namespace kftrain::cli::kube
