#include "cli/view/manifest_text.h"

#include "manifest/yaml/emit.h"

namespace kftrain::cli::view {

std::string format_manifest(const YAML::Node& manifest, OutputFormat format) {
    if (format == OutputFormat::Json) {
        return manifest::to_json(manifest).dump(2) + "\n";
    }
    return manifest::to_yaml(manifest);
}

}  // namespace kftrain::cli::view
