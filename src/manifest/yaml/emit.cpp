#include "manifest/yaml/emit.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <regex>

namespace kftrain::manifest {
namespace {

enum class PlainKind { String, Int, Float, Bool, Null };

// How a plain scalar resolves for Kubernetes' YAML reader (YAML 1.1 booleans
// such as yes/on included, so such strings get quoted).
PlainKind resolve_plain(const std::string& text) {
    static const std::regex k_int("[-+]?(0|[1-9][0-9]*)|0o?[0-7]+|0x[0-9a-fA-F]+");
    static const std::regex k_float(
        "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|"
        "NAN)");
    static const std::regex k_bool(
        "true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N");
    static const std::regex k_null("~|null|Null|NULL|");
    if (std::regex_match(text, k_null)) {
        return PlainKind::Null;
    }
    if (std::regex_match(text, k_bool)) {
        return PlainKind::Bool;
    }
    if (std::regex_match(text, k_int)) {
        return PlainKind::Int;
    }
    if (std::regex_match(text, k_float)) {
        return PlainKind::Float;
    }
    return PlainKind::String;
}

// A plain integer or float as JSON: a 64-bit integer when it fits, else a double (YAML's
// .inf and .nan included), never an exception on 20 digits or 1e999.
nlohmann::json plain_number(const std::string& text) {
    long long value = 0;
    const char* begin = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
    const char* end = text.data() + text.size();
    auto parsed = std::from_chars(begin, end, value);
    if (parsed.ec == std::errc() && parsed.ptr == end) {
        return value;
    }
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.find(".nan") != std::string::npos) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (lower.find(".inf") != std::string::npos) {
        return lower[0] == '-' ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity();
    }
    return std::strtod(text.c_str(), nullptr);
}

bool is_string(const YAML::Node& node) {
    return node.Tag() == "!";
}

void emit(YAML::Emitter& out, const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Map:
            out << YAML::BeginMap;
            for (const auto& entry : node) {
                out << YAML::Key;
                emit(out, entry.first);
                out << YAML::Value;
                emit(out, entry.second);
            }
            out << YAML::EndMap;
            return;
        case YAML::NodeType::Sequence:
            out << YAML::BeginSeq;
            for (const auto& item : node) {
                emit(out, item);
            }
            out << YAML::EndSeq;
            return;
        case YAML::NodeType::Scalar:
            if (is_string(node) && resolve_plain(node.Scalar()) != PlainKind::String) {
                out << YAML::DoubleQuoted << node.Scalar();
            } else {
                out << node.Scalar();
            }
            return;
        default:
            out << YAML::Null;
            return;
    }
}

}  // namespace

YAML::Node string_node(const std::string& value) {
    YAML::Node node(value);
    node.SetTag("!");
    return node;
}

YAML::Node string_list(const std::vector<std::string>& items) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& item : items) {
        list.push_back(string_node(item));
    }
    return list;
}

std::string to_yaml(const YAML::Node& node) {
    YAML::Emitter out;
    out.SetIndent(2);
    out.SetSeqFormat(YAML::Block);
    emit(out, node);
    return std::string(out.c_str()) + "\n";
}

nlohmann::json to_json(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Map: {
            nlohmann::json object = nlohmann::json::object();
            for (const auto& entry : node) {
                object[entry.first.Scalar()] = to_json(entry.second);
            }
            return object;
        }
        case YAML::NodeType::Sequence: {
            nlohmann::json array = nlohmann::json::array();
            for (const auto& item : node) {
                array.push_back(to_json(item));
            }
            return array;
        }
        case YAML::NodeType::Scalar: {
            const std::string& text = node.Scalar();
            if (is_string(node)) {
                return text;
            }
            switch (resolve_plain(text)) {
                case PlainKind::Null:
                    return nullptr;
                case PlainKind::Bool:
                    return text == "true" || text == "True" || text == "TRUE";
                case PlainKind::Int:
                    if (text.find_first_of("xo") == std::string::npos) {
                        return plain_number(text);
                    }
                    return text;
                case PlainKind::Float:
                    return plain_number(text);
                case PlainKind::String:
                    return text;
            }
            return text;
        }
        default:
            return nullptr;
    }
}

}  // namespace kftrain::manifest
