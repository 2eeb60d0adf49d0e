#include "cli/render_cmd.h"

#include <memory>

#include "cli/exit_codes.h"
#include "manifest/render.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_render_examples =
    "Examples:\n"
    "  # Print the PyTorchJob as YAML\n"
    "  kftrain render -f examples/mnist-ddp.yaml\n"
    "  # Eight replicas, five epochs, as JSON\n"
    "  kftrain render -f examples/mnist-ddp.yaml --set replicas=8 --set trainer.epochs=5 -o json\n"
    "  # Render into your own template\n"
    "  kftrain render -f job.yaml --template my-pytorchjob.yaml";

}  // namespace

void setup_render(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<RenderOptions>();
    auto* sub = app.add_subcommand("render", "Print the PyTorchJob a job file makes");
    sub->footer(k_render_examples);
    add_job_input_flags(*sub, options->job);
    sub->add_option("-o,--output", options->output, "Output format")
        ->check(CLI::IsMember({"yaml", "json"}));
    sub->add_flag_callback(
        "--list-placeholders",
        [&ctx] {
            for (const auto& name : manifest::placeholder_names()) {
                ctx.out << "{{ " << name << " }}\n";
            }
            throw CLI::Success();
        },
        "List the placeholders a template may use, and exit");
    sub->callback([options, &ctx] { ctx.exit_code = run_render(*options, ctx); });
}

int run_render(const RenderOptions& options, Context& ctx) {
    auto job = load_and_render(options.job, ctx.global);
    if (!job) {
        return report_error(ctx, job.error(), k_exit_bad_input);
    }
    ctx.out << format_manifest(job->manifest, options.output);
    return k_exit_ok;
}

}  // namespace kftrain::cli
