#include "manifest/overrides.h"

#include <fmt/format.h>

#include "manifest/schema.h"
#include "manifest/suggest.h"
#include "manifest/yaml/input.h"

namespace kftrain::manifest {
namespace {

using util::error;

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        size_t dot = path.find('.', start);
        parts.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
        if (dot == std::string::npos) {
            return parts;
        }
        start = dot + 1;
    }
}

bool is_map_type(FieldType type) {
    return type == FieldType::StringMap || type == FieldType::Env;
}

// Turn the text after '=' into a node of the field's shape.
util::Result<YAML::Node> parse_value(const std::string& text, const FieldDef& def,
                                     const std::string& path) {
    bool structured = def.type == FieldType::StringList || def.type == FieldType::ObjectList ||
                      def.type == FieldType::Object || is_map_type(def.type);
    if (!structured) {
        return YAML::Node(text);
    }
    auto loaded = parse_yaml(text, "--set " + path);
    if (!loaded) {
        return error(fmt::format("{} (got {})", loaded.error(), text));
    }
    YAML::Node parsed = *loaded;
    if (def.type == FieldType::StringList && parsed.IsScalar()) {
        YAML::Node list(YAML::NodeType::Sequence);
        list.push_back(parsed);
        return list;
    }
    return parsed;
}

}  // namespace

util::Status apply_set(YAML::Node& root, const std::string& assignment, SourceMap& source) {
    size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
        return error(fmt::format("--set: expected key=value (got {})", assignment));
    }
    std::string path = assignment.substr(0, eq);
    std::string text = assignment.substr(eq + 1);
    std::vector<std::string> parts = split_path(path);

    const FieldDef* def = &job_schema();
    std::vector<YAML::Node> chain{root};
    std::string walked;
    for (size_t i = 0; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        std::vector<std::string> names;
        const FieldDef* next = nullptr;
        for (const auto& child : def->children) {
            names.push_back(child.name);
            next = child.name == part ? &child : next;
        }
        std::string prefix = walked.empty() ? "" : walked + ".";
        walked = prefix + part;
        if (part.empty() || next == nullptr) {
            return error(
                fmt::format("--set {}: unknown key{}", walked, did_you_mean(part, names, prefix)));
        }
        def = next;
        YAML::Node parent = chain.back();
        bool last = i + 1 == parts.size();
        if (is_map_type(def->type) && !last) {
            // The rest of the path is one key of the map, dots included ("labels.app.io/x").
            std::string key = path.substr(walked.size() + 1);
            if (!parent[part].IsMap()) {
                parent[part] = YAML::Node(YAML::NodeType::Map);
            }
            YAML::Node map = parent[part];
            map[key] = YAML::Node(text);
            source.from_flags[walked + "." + key] = "--set";
            return util::ok_status();
        }
        if (last) {
            auto value = parse_value(text, *def, path);
            if (!value) {
                return util::error(value.error());
            }
            parent[part] = *value;
            source.from_flags[path] = "--set";
            return util::ok_status();
        }
        if (def->type != FieldType::Object) {
            return error(fmt::format("--set {}: {} is {}, not a map with keys", path, walked,
                                     describe_type(def->type)));
        }
        if (!parent[part].IsMap()) {
            parent[part] = YAML::Node(YAML::NodeType::Map);
        }
        chain.push_back(parent[part]);
    }
    return util::ok_status();
}

}  // namespace kftrain::manifest
