#include "cli/verbs/render_cmd.h"

#include <fmt/format.h>

#include <memory>

#include "cli/job_flags.h"
#include "cli/verb.h"
#include "cli/view/manifest_text.h"
#include "job/exit_codes.h"
#include "load/derived_runtime.h"
#include "manifest/credentials.h"
#include "manifest/render/metrics_scrape.h"
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
    "  kftrain render -f job.yaml --template my-pytorchjob.yaml\n"
    "  # The job and a PodMonitor for Prometheus Operator, to kubectl apply together\n"
    "  kftrain render -f job.yaml --set trainer.metricsPort=9400 --pod-monitor\n"
    "  # Ship the current folder with the job: its ConfigMap, then the job\n"
    "  kftrain render -f job.yaml --code . | kubectl apply -f -";

}  // namespace

void setup_render(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<RenderOptions>();
    auto* sub = app.add_subcommand(
        "render", "Print the Kubeflow job (PyTorchJob, TrainJob, ...) a job file makes");
    sub->footer(k_render_examples);
    add_job_input_flags(*sub, options->job);
    add_queue_flags(*sub, options->job);
    add_retries_flag(*sub, options->job);
    sub->add_option("-o,--output", options->output, "Output format: yaml or json")
        ->default_str("yaml");
    sub->add_flag("--pod-monitor", options->pod_monitor,
                  "Also print a Prometheus Operator PodMonitor that scrapes the job's "
                  "trainer.metricsPort (YAML: a second document; JSON: a List)");
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
    auto loaded = load::load_and_render(job, ctx.global, ctx.err);
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
    if (pod_monitor && rendered.spec.metrics_port() == 0) {
        return util::error(
            "--pod-monitor: the job serves no metrics: set trainer.metricsPort for "
            "kftrain-trainer (e.g. --set trainer.metricsPort=9400), or metrics.port for a "
            "program of your own");
    }
    if (pod_monitor && !manifest::declares_metrics_port(rendered.manifest, rendered.spec)) {
        return util::error(fmt::format(
            "--pod-monitor: the template's pods declare no container port named {} for it to "
            "scrape: add ports: \"{{{{ ports }}}}\" to its containers (--template {})",
            manifest::k_metrics_port_name, job.template_file));
    }
    return util::ok_status();
}

int RenderOptions::run(Context& ctx) const {
    manifest::print_credential_warnings(rendered.spec, ctx.err);
    // What kubectl apply needs first comes first: the code's ConfigMap before the job's pods.
    std::vector<YAML::Node> documents;
    if (rendered.code) {
        documents.push_back(rendered.code_config_map);
    }
    if (rendered.runtime
            .IsMap()) {  // the retry budget's runtime, before the TrainJob that refers to it
        documents.push_back(rendered.runtime);
    } else if (load::needs_derived_runtime(rendered.spec)) {
        ctx.err << fmt::format(
            "kftrain: note: runtime {} is not one kftrain keeps a copy of: submit derives the "
            "TrainingRuntime of the retry budget from the cluster's; the TrainJob shown refers "
            "to {} itself\n",
            rendered.spec.runtime, rendered.spec.runtime);
    }
    documents.push_back(rendered.manifest);
    if (pod_monitor) {
        documents.push_back(manifest::pod_monitor(rendered.spec));
    }
    ctx.out << view::format_manifests(documents, format);
    return k_exit_ok;
}

}  // namespace kftrain::cli
