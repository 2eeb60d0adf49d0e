#include "mcp/masking.h"

#include "util/redact.h"

namespace kftrain::mcp {
namespace {

constexpr const char* k_mask = "***";

bool ends_with(const std::string& text, const char* suffix) {
    const std::string tail(suffix);
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// Whether an object's member holds a credential by its key ({"api_token": "x"}, a metric the
// program posted under that name). The names of Secrets and their keys (secretName,
// secretKeyRef's key) say where a credential is, not what it is: they stay.
bool credential_member(const std::string& key, const nlohmann::json& value) {
    if ((!value.is_string() && !value.is_number()) || (value.is_string() && value.empty()) ||
        key == "key" || ends_with(key, "Name") || ends_with(key, "Ref")) {
        return false;
    }
    return util::names_credential(key);
}

void mask(nlohmann::json& value) {
    if (value.is_string()) {
        value = util::mask_secrets(value.get<std::string>());
        return;
    }
    if (value.is_object()) {
        auto name = value.find("name");
        auto secret = value.find("value");
        if (name != value.end() && name->is_string() && secret != value.end() &&
            secret->is_string() && !secret->get_ref<const std::string&>().empty() &&
            util::names_credential(name->get<std::string>())) {
            *secret = k_mask;
        }
    }
    if (value.is_object()) {
        for (auto& [key, item] : value.items()) {
            if (credential_member(key, item)) {
                item = k_mask;
            } else {
                mask(item);
            }
        }
    } else if (value.is_array()) {
        for (auto& item : value) {
            mask(item);
        }
    }
}

}  // namespace

nlohmann::json mask_credentials(nlohmann::json value) {
    mask(value);
    return value;
}

}  // namespace kftrain::mcp
