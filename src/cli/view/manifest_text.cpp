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

}  // namespace kftrain::cli::view
