#include "util/json_fields.h"

#include "util/json_text.h"

namespace kftrain::util {

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
    return json_number<int>(member(object, key)).value_or(0);
}

}  // namespace kftrain::util
