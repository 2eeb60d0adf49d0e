#include "cli/view/manifest_text.h"

#include "manifest/yaml/emit.h"
#include "util/json_text.h"

namespace kftrain::cli::view {

std::string format_manifest(const YAML::Node& manifest, OutputFormat format) {
    if (format == OutputFormat::Json) {
        return util::json_text(manifest::to_json(manifest), 2) + "\n";
    }
    return manifest::to_yaml(manifest);
}

std::string format_manifests(const std::vector<YAML::Node>& documents, OutputFormat format) {
    if (documents.size() == 1) {
        return format_manifest(documents.front(), format);
    }
    if (format == OutputFormat::Json) {
        YAML::Node list(YAML::NodeType::Map);
        list["apiVersion"] = "v1";
        list["kind"] = "List";
        for (const auto& document : documents) {
            list["items"].push_back(document);
        }
        return format_manifest(list, format);
    }
    std::string text;
    for (size_t i = 0; i < documents.size(); ++i) {
        text += (i == 0 ? "" : "---\n") + format_manifest(documents[i], format);
    }
    return text;
}

}  // namespace kftrain::cli::view
