#include "manifest/yaml/node_check.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "manifest/k8s/quantity.h"
#include "manifest/suggest.h"
#include "util/text.h"

namespace kftrain::manifest {
namespace {

using util::error;
using util::Status;

constexpr double k_int_min = std::numeric_limits<int>::min();
constexpr double k_int_max = std::numeric_limits<int>::max();

std::string format_limit(double value) {
    return value == std::floor(value) ? fmt::format("{:.0f}", value) : fmt::format("{}", value);
}

class NodeChecker {
  public:
    explicit NodeChecker(const SourceMap& source) : m_source(source) {}

    Status check(const YAML::Node& node, const FieldDef& def, const std::string& path) {
        if (node.IsNull()) {
            return util::ok_status();  // an empty value means "use the default"
        }
        switch (def.type) {
            case FieldType::Object:
                return check_object(node, def, path);
            case FieldType::ObjectList:
                return check_object_list(node, def, path);
            case FieldType::StringList:
                return check_string_list(node, path);
            case FieldType::StringMap:
                return check_string_map(node, path, def.type);
            case FieldType::Env:
                return check_env(node, path);
            default:
                return check_scalar(node, def, path);
        }
    }

  private:
    Status fail(const std::string& path, const std::string& what, const YAML::Node& got) {
        return error(
            fmt::format("{}: {} (got {})", m_source.locate(path), what, describe_value(got)));
    }

    Status wrong_type(const YAML::Node& node, const FieldDef& def, const std::string& path) {
        return fail(path, "expected " + describe_type(def.type), node);
    }

    Status check_object(const YAML::Node& node, const FieldDef& def, const std::string& path) {
        if (!node.IsMap()) {
            return wrong_type(node, def, path);
        }
        std::vector<std::string> names;
        for (const auto& child : def.children) {
            names.push_back(child.name);
        }
        for (const auto& entry : node) {
            std::string key = entry.first.as<std::string>();
            std::string child_path = path.empty() ? key : path + "." + key;
            const FieldDef* child = nullptr;
            for (const auto& c : def.children) {
                if (c.name == key) {
                    child = &c;
                }
            }
            if (child == nullptr) {
                std::string hint = did_you_mean(key, names, path.empty() ? "" : path + ".");
                return error(fmt::format("{}: unknown key{}", m_source.locate(child_path), hint));
            }
            auto checked = check(entry.second, *child, child_path);
            if (!checked) {
                return checked;
            }
        }
        return util::ok_status();
    }

    Status check_object_list(const YAML::Node& node, const FieldDef& def, const std::string& path) {
        if (!node.IsSequence()) {
            return wrong_type(node, def, path);
        }
        FieldDef item = def;
        item.type = FieldType::Object;
        for (size_t i = 0; i < node.size(); ++i) {
            auto checked = check_object(node[i], item, fmt::format("{}[{}]", path, i));
            if (!checked) {
                return checked;
            }
        }
        return util::ok_status();
    }

    Status check_string_list(const YAML::Node& node, const std::string& path) {
        if (!node.IsSequence()) {
            return fail(path, "expected " + describe_type(FieldType::StringList), node);
        }
        for (size_t i = 0; i < node.size(); ++i) {
            if (!node[i].IsScalar()) {
                return fail(fmt::format("{}[{}]", path, i), "expected a string", node[i]);
            }
        }
        return util::ok_status();
    }

    Status check_string_map(const YAML::Node& node, const std::string& path, FieldType type) {
        if (!node.IsMap()) {
            return fail(path, "expected " + describe_type(type), node);
        }
        for (const auto& entry : node) {
            if (!entry.second.IsScalar()) {
                std::string key = path + "." + entry.first.as<std::string>();
                return fail(key, "expected a string", entry.second);
            }
        }
        return util::ok_status();
    }

    Status check_env(const YAML::Node& node, const std::string& path) {
        if (!node.IsMap()) {
            return fail(path, "expected " + describe_type(FieldType::Env), node);
        }
        for (const auto& entry : node) {
            std::string key = path + "." + entry.first.as<std::string>();
            const YAML::Node& value = entry.second;
            if (value.IsScalar() || value.IsNull()) {
                continue;
            }
            const YAML::Node ref = value.IsMap() ? value["secretKeyRef"] : YAML::Node();
            auto scalar_at = [&ref](const char* key) {
                const YAML::Node child = ref[key];
                return child.IsDefined() && child.IsScalar();
            };
            bool good = value.IsMap() && value.size() == 1 && ref.IsDefined() && ref.IsMap() &&
                        ref.size() == 2 && scalar_at("name") && scalar_at("key");
            if (!good) {
                return fail(key, "expected a string or {secretKeyRef: {name: ..., key: ...}}",
                            value);
            }
        }
        return util::ok_status();
    }

    Status check_scalar(const YAML::Node& node, const FieldDef& def, const std::string& path) {
        if (!node.IsScalar()) {
            return wrong_type(node, def, path);
        }
        const std::string& text = node.Scalar();
        switch (def.type) {
            case FieldType::Bool:
                if (text != "true" && text != "false") {
                    return wrong_type(node, def, path);
                }
                return util::ok_status();
            case FieldType::Quantity: {
                auto q = read_quantity(text);
                if (!q && q.error() != k_quantity_expected) {
                    return fail(path, q.error(), node);
                }
                if (!q || *q < 0) {
                    return wrong_type(node, def, path);
                }
                return util::ok_status();
            }
            case FieldType::Int:
            case FieldType::Float:
                return check_number(node, def, path);
            default:
                break;
        }
        if (!def.allowed.empty() &&
            std::find(def.allowed.begin(), def.allowed.end(), text) == def.allowed.end()) {
            return fail(path,
                        fmt::format("must be one of {}{}", fmt::join(def.allowed, ", "),
                                    did_you_mean(text, def.allowed)),
                        node);
        }
        return util::ok_status();
    }

    Status check_number(const YAML::Node& node, const FieldDef& def, const std::string& path) {
        auto value = util::parse_number(node.Scalar(), def.type == FieldType::Int);
        if (!value) {
            return wrong_type(node, def, path);
        }
        // An integer without a limit of its own still fits in the int kftrain reads it into.
        const bool integer = def.type == FieldType::Int;
        auto min = def.min ? def.min : integer ? std::optional<double>(k_int_min) : std::nullopt;
        auto max = def.max ? def.max : integer ? std::optional<double>(k_int_max) : std::nullopt;
        if (min && *value < *min) {
            return fail(path, "must be >= " + format_limit(*min), node);
        }
        if (max && *value > *max) {
            return fail(path, "must be <= " + format_limit(*max), node);
        }
        return util::ok_status();
    }

    const SourceMap& m_source;
};

}  // namespace

std::string describe_value(const YAML::Node& node) {
    if (!node.IsDefined() || node.IsNull()) {
        return "nothing";
    }
    if (node.IsMap()) {
        return "a map";
    }
    if (node.IsSequence()) {
        return "a list";
    }
    // At most 64 bytes of it: the value may be any file's content, named by mistake or by an
    // untrusted caller (an MCP client).
    const std::string text = util::excerpt(node.Scalar(), 64);
    bool needs_quotes = text.empty() || text.find_first_of(" \t\n\"'") != std::string::npos;
    if (!needs_quotes) {
        return text;
    }
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '\n') {
            quoted += "\\n";
        } else if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += c;
        } else {
            quoted += c;
        }
    }
    return quoted + "\"";
}

Status check_against_schema(const YAML::Node& root, const SourceMap& source) {
    return NodeChecker(source).check(root, job_schema(), "");
}

}  // namespace kftrain::manifest
