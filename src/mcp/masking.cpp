#include "mcp/masking.h"

#include "util/redact.h"

namespace kftrain::mcp {
namespace {

constexpr const char* k_mask = "***";

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
    if (value.is_object() || value.is_array()) {
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
