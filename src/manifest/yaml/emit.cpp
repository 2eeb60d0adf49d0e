#include "manifest/yaml/emit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <regex>
#include <string_view>

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

// Return whether text holds what a YAML reader would not give back as it is unless escaped in
// double quotes: a CR (a line break to YAML, and a trailing one is dropped), a C0 control
// other than tab and newline, DEL, a C1 control (NEL is a line break to YAML 1.1), the line
// and paragraph separators, a BOM, the noncharacters U+FFFE and U+FFFF.
bool needs_escapes(const std::string& text) {
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            return true;
        }
        const std::string_view rest = std::string_view(text).substr(i);
        if ((c == 0xc2 && rest.size() > 1 && static_cast<unsigned char>(rest[1]) < 0xa0) ||
            rest.rfind("\xe2\x80\xa8", 0) == 0 || rest.rfind("\xe2\x80\xa9", 0) == 0 ||
            rest.rfind("\xef\xbb\xbf", 0) == 0 || rest.rfind("\xef\xbf\xbe", 0) == 0 ||
            rest.rfind("\xef\xbf\xbf", 0) == 0) {
            return true;
        }
    }
    return false;
}

// Append the UTF-8 character of text at i to out as a YAML double-quoted scalar holds it;
// return the index after it. What needs_escapes looks for is escaped, as are quote and
// backslash; any other character is written as it is.
size_t append_quoted_char(std::string& out, const std::string& text, size_t i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
        return i + 1;
    }
    if (c == '\n' || c == '\t' || c == '\r') {
        out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
        return i + 1;
    }
    if (c < 0x20 || c == 0x7f) {
        out += fmt::format("\\x{:02x}", c);
        return i + 1;
    }
    const std::string_view rest = std::string_view(text).substr(i);
    if (c == 0xc2 && rest.size() > 1 && static_cast<unsigned char>(rest[1]) < 0xa0) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(rest[1]));  // C1: U+0080..
        return i + 2;
    }
    for (const char* special :
         {"\xe2\x80\xa8", "\xe2\x80\xa9", "\xef\xbb\xbf", "\xef\xbf\xbe", "\xef\xbf\xbf"}) {
        if (rest.rfind(special, 0) == 0) {
            const auto b = [&](size_t k) {
                return static_cast<unsigned>(static_cast<unsigned char>(rest[k]));
            };
            out += fmt::format("\\u{:04x}",
                               ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f));
            return i + 3;
        }
    }
    out += static_cast<char>(c);
    return i + 1;
}

// Return text as a YAML double-quoted scalar that reads back byte for byte.
std::string double_quoted(const std::string& text) {
    std::string out = "\"";
    for (size_t i = 0; i < text.size();) {
        i = append_quoted_char(out, text, i);
    }
    return out + "\"";
}

// The scalars to_yaml writes itself: each is emitted as a placeholder (a plain word no scalar
// of the document holds) and replaced by its double-quoted form in the text.
class Escaped {
  public:
    explicit Escaped(std::string prefix) : m_prefix(std::move(prefix)) {}

    // Keep text; return its placeholder.
    std::string hold(const std::string& text) {
        m_texts.push_back(text);
        return m_prefix + std::to_string(m_texts.size() - 1) + "-";
    }

    // Replace each placeholder in yaml by its scalar.
    std::string fill(std::string yaml) const {
        for (size_t i = 0; i < m_texts.size(); ++i) {
            const std::string placeholder = m_prefix + std::to_string(i) + "-";
            const size_t at = yaml.find(placeholder);
            if (at != std::string::npos) {
                yaml.replace(at, placeholder.size(), double_quoted(m_texts[i]));
            }
        }
        return yaml;
    }

  private:
    std::string m_prefix;
    std::vector<std::string> m_texts;
};

// Return whether any scalar of node (keys too) holds part.
bool holds(const YAML::Node& node, const std::string& part) {
    if (node.IsScalar()) {
        return node.Scalar().find(part) != std::string::npos;
    }
    if (node.IsMap()) {
        for (const auto& entry : node) {
            if (holds(entry.first, part) || holds(entry.second, part)) {
                return true;
            }
        }
    } else if (node.IsSequence()) {
        for (const auto& item : node) {
            if (holds(item, part)) {
                return true;
            }
        }
    }
    return false;
}

void emit(YAML::Emitter& out, const YAML::Node& node, Escaped& escaped) {
    switch (node.Type()) {
        case YAML::NodeType::Map:
            out << YAML::BeginMap;
            for (const auto& entry : node) {
                out << YAML::Key;
                emit(out, entry.first, escaped);
                out << YAML::Value;
                emit(out, entry.second, escaped);
            }
            out << YAML::EndMap;
            return;
        case YAML::NodeType::Sequence:
            out << YAML::BeginSeq;
            for (const auto& item : node) {
                emit(out, item, escaped);
            }
            out << YAML::EndSeq;
            return;
        case YAML::NodeType::Scalar:
            if (is_string(node) && needs_escapes(node.Scalar())) {
                // yaml-cpp writes U+FFFE as U+FFFD and DEL raw: a placeholder, replaced after.
                out << escaped.hold(node.Scalar());
            } else if (is_string(node) && resolve_plain(node.Scalar()) != PlainKind::String) {
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
    std::string prefix = "kftrain-escaped-";
    for (int n = 0; holds(node, prefix); ++n) {
        prefix = "kftrain-escaped" + std::to_string(n) + "-";
    }
    Escaped escaped(prefix);
    emit(out, node, escaped);
    return escaped.fill(std::string(out.c_str()) + "\n");
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
