// Fuzz the job-file loader with command-line overrides, then render what it accepts.
// Input: the job file's YAML, then NUL-separated overrides: "-n NAME" is --namespace,
// "--kind KIND" is --kind, anything else is one --set "dotted.key=value".
// Properties: nothing throws or crashes, every error has a message, and a rendered manifest
// parses back as YAML.

#include <yaml-cpp/yaml.h>

#include "fuzz_input.h"
#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"

namespace {

using namespace kftrain;

manifest::Overrides overrides_from(const std::vector<std::string>& parts) {
    manifest::Overrides overrides;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        if (part.rfind("-n ", 0) == 0) {
            overrides.namespace_ = part.substr(3);
        } else if (part.rfind("--kind ", 0) == 0) {
            overrides.kind = manifest::parse_kind(part.substr(7));
        } else {
            overrides.sets.push_back(part);
        }
    }
    return overrides;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const auto parts = fuzz::split_nul(data, size);
    auto spec = manifest::load_job_text(parts[0], "job.yaml", overrides_from(parts));
    if (!spec.ok()) {
        if (spec.error().empty()) {
            fuzz::fail("load_job_text failed with an empty message");
        }
        return 0;
    }
    auto doc = manifest::render_job(*spec, manifest::default_template(spec->kind));
    if (!doc.ok()) {
        if (doc.error().empty()) {
            fuzz::fail("render_job failed with an empty message");
        }
        return 0;
    }
    const std::string text = manifest::to_yaml(*doc);
    try {
        (void)YAML::Load(text);
    } catch (const YAML::Exception& e) {
        fuzz::fail("the rendered manifest does not parse back: " + std::string(e.what()) + "\n" +
                   text);
    }
    return 0;
}
