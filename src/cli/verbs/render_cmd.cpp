#include "cli/verbs/render_cmd.h"

#include <memory>

#include "cli/exit_codes.h"
#include "cli/verb.h"
#include "cli/view/manifest_text.h"
#include "manifest/credentials.h"
#include "manifest/render/render.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_render_examples =
    "Examples:\n"
    "  # Print the PyTorchJob as YAML\n"
    "  kftrain render -f examples/mnist-ddp.yaml\n"
    "  # The same job file as a Kubeflow Trainer v2 TrainJob\n"
    "  kftrain render -f examples/mnist-ddp.yaml --kind TrainJob\n"
    "  # Eight replicas, five epochs, as JSON\n"
    "  kftrain render -f examples/mnist-ddp.yaml --set replicas=8 --set trainer.epochs=5 -o json\n"
    "  # Render into your own template\n"
    "  kftrain render -f job.yaml --template my-pytorchjob.yaml";

}  // namespace

void setup_render(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<RenderOptions>();
    auto* sub = app.add_subcommand("render", "Print the PyTorchJob or TrainJob a job file makes");
    sub->footer(k_render_examples);
    job::add_job_input_flags(*sub, options->job);
    job::add_queue_flags(*sub, options->job);
    sub->add_option("-o,--output", options->output, "Output format: yaml or json")
        ->default_str("yaml");
    sub->add_flag_callback(
        "--list-placeholders",
        [&ctx] {
            for (const auto& name : manifest::placeholder_names()) {
                ctx.out << "{{ " << name << " }}\n";
            }
            throw CLI::Success();
        },
        "List the placeholders a template may use, and exit");
    run_when_parsed(*sub, options, ctx);
}

util::Status RenderOptions::complete(const Context& ctx) {
    auto loaded = job::load_and_render(job, ctx.global);
    if (!loaded) {
        return loaded.error_value();
    }
    rendered = std::move(*loaded);
    return util::ok_status();
}

util::Status RenderOptions::validate() {
    auto parsed = view::parse_output_format(output, view::k_manifest_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    return util::ok_status();
}

int RenderOptions::run(Context& ctx) const {
    manifest::print_credential_warnings(rendered.spec, ctx.err);
    ctx.out << view::format_manifest(rendered.manifest, format);
    return k_exit_ok;
}

}  // namespace kftrain::cli
