#include "mcp/masking.h"

#include <cctype>

#include "util/redact.h"

namespace kftrain::mcp {
namespace {

constexpr const char* k_mask = "***";

bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

bool value_end(char c) {
    return std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == ',' ||
           c == ';' || c == '&';
}

// Mask the value of every NAME=value and --name=value whose name names a credential. A scan,
// not a regex: a line may be a megabyte long.
std::string mask_assignments(const std::string& text) {
    std::string out;
    size_t copied = 0;
    for (size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
        size_t start = eq;
        while (start > copied && name_char(text[start - 1])) {
            --start;
        }
        std::string name = text.substr(start, eq - start);
        name.erase(0, name.find_first_not_of('-'));
        size_t end = eq + 1;
        while (end < text.size() && !value_end(text[end])) {
            ++end;
        }
        if (name.empty() || !std::isalpha(static_cast<unsigned char>(name.front())) ||
            end == eq + 1 || !util::names_credential(name)) {
            continue;
        }
        out.append(text, copied, eq + 1 - copied);
        out += k_mask;
        copied = end;
        eq = end - 1;
    }
    out.append(text, copied, std::string::npos);
    return out;
}

}  // namespace

std::string mask_text(const std::string& text) {
    return mask_assignments(util::redact_credentials(text));
}

namespace {

void mask(nlohmann::json& value) {
    if (value.is_string()) {
        value = mask_text(value.get<std::string>());
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
