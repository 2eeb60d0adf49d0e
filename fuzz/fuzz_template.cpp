// Fuzz the template renderer: the input is a job template, rendered with the example jobs
// of every kind: examples/mnist-ddp.yaml (a PyTorchJob), examples/mnist-trainjob.yaml (a
// TrainJob), examples/tensorflow/tfjob.yaml, examples/xgboost/xgboostjob.yaml and
// examples/jax/jaxjob.yaml.
// Properties: nothing throws or crashes, every error has a message, and what renders is
// emitted as YAML that parses back.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "fuzz_input.h"
#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"

namespace {

using namespace kftrain;

std::vector<manifest::JobSpec> load_examples() {
    std::vector<manifest::JobSpec> specs;
    for (const char* name : {"mnist-ddp.yaml", "mnist-trainjob.yaml", "tensorflow/tfjob.yaml",
                             "xgboost/xgboostjob.yaml", "jax/jaxjob.yaml"}) {
        const std::string path = std::string(KFTRAIN_SOURCE_DIR) + "/examples/" + name;
        auto spec = manifest::load_job_file(path, {});
        if (!spec.ok()) {
            fuzz::fail("cannot load " + path + ": " + spec.error());
        }
        specs.push_back(std::move(*spec));
    }
    return specs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const std::vector<manifest::JobSpec> specs = load_examples();
    const manifest::Template tmpl{std::string(reinterpret_cast<const char*>(data), size),
                                  "template.yaml"};
    for (const auto& spec : specs) {
        auto doc = manifest::render_job(spec, tmpl);
        if (!doc.ok()) {
            if (doc.error().empty()) {
                fuzz::fail("render_job failed with an empty message");
            }
            continue;
        }
        const std::string text = manifest::to_yaml(*doc);
        try {
            (void)YAML::Load(text);
        } catch (const YAML::Exception& e) {
            fuzz::fail("the rendered manifest does not parse back: " + std::string(e.what()) +
                       "\n" + text);
        }
    }
    return 0;
}
