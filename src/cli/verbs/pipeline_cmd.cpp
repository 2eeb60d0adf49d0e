#include "cli/verbs/pipeline_cmd.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <regex>

#include "cli/job_flags.h"
#include "cli/verb.h"
#include "cli/view/manifest_text.h"
#include "job/exit_codes.h"
#include "manifest/schema.h"
#include "manifest/yaml/emit.h"
#include "manifest/yaml/input.h"
#include "pipeline/ir_check.h"
#include "util/json_text.h"
#include "util/text.h"

namespace kftrain::cli {
namespace {

constexpr const char* k_default_image = "kftrain/cli:latest";

constexpr const char* k_pipeline_examples =
    "Examples:\n"
    "  # A pipeline whose one step trains examples/mnist-ddp.yaml on the cluster\n"
    "  kftrain pipeline -f examples/mnist-ddp.yaml --image registry.example.com/kftrain-cli:1 "
    "> train.yaml\n"
    "  # The learning rate and the replicas as pipeline inputs, set per run\n"
    "  kftrain pipeline -f examples/mnist-ddp.yaml --param trainer.lr --param replicas\n"
    "  # Upload train.yaml in the Pipelines dashboard (+ Upload pipeline), or run it from\n"
    "  # Python: kfp.Client().create_run_from_pipeline_package('train.yaml',\n"
    "  #     arguments={'trainer_lr': 0.05}, service_account='kftrain-step')\n\n"
    "The step runs `kftrain submit --follow` in --image: it submits the job to the run's\n"
    "namespace (input namespace), streams every replica's log, writes the job's final state\n"
    "and its last metrics to the outputs state and metrics, and fails when the job fails.\n"
    "The run's service account needs to create, get, watch and delete the job's kind, and\n"
    "to get and list pods and pods/log: docs/pipelines.md has the Role.";

// Return the pipeline's type of a job-file key, or an error naming the flag when the key
// cannot be one input (an object, a list or a map).
util::Result<pipeline::ParameterType> param_type(const std::string& key) {
    const auto* field = manifest::find_field(key);
    if (field == nullptr) {
        return util::error(fmt::format(
            "--param {}: not a job-file key (e.g. replicas, trainer.lr; see kftrain init)", key));
    }
    switch (field->type) {
        case manifest::FieldType::Int:
            return pipeline::ParameterType::Integer;
        case manifest::FieldType::Float:
            return pipeline::ParameterType::Double;
        case manifest::FieldType::Bool:
            return pipeline::ParameterType::Boolean;
        case manifest::FieldType::String:
        case manifest::FieldType::Quantity:
            return pipeline::ParameterType::String;
        default:
            break;
    }
    return util::error(
        fmt::format("--param {}: {} cannot be one pipeline input; give a key of one value (e.g. "
                    "trainer.lr, replicas, resources.cpu)",
                    key, manifest::describe_type(field->type)));
}

// Return a key's value as the job runs it: the last --set of it, else the job file's, else
// the schema's default ("" when none).
std::string current_value(const YAML::Node& root, const std::vector<std::string>& sets,
                          const std::string& key) {
    for (auto it = sets.rbegin(); it != sets.rend(); ++it) {
        if (it->rfind(key + "=", 0) == 0) {
            return it->substr(key.size() + 1);
        }
    }
    YAML::Node node = YAML::Clone(root);
    std::size_t start = 0;
    while (node && node.IsMap()) {
        const auto dot = key.find('.', start);
        node = node[key.substr(start, dot == std::string::npos ? dot : dot - start)];
        if (dot == std::string::npos) {
            return node && node.IsScalar() ? node.Scalar() : std::string();
        }
        start = dot + 1;
    }
    const auto* field = manifest::find_field(key);
    return field != nullptr ? field->default_text : std::string();
}

// Return the Python type the SDK's header names for a parameter type.
const char* python_type(pipeline::ParameterType type) {
    switch (type) {
        case pipeline::ParameterType::Integer:
            return "int";
        case pipeline::ParameterType::Double:
            return "float";
        case pipeline::ParameterType::Boolean:
            return "bool";
        case pipeline::ParameterType::String:
            break;
    }
    return "str";
}

// Whether text holds a KFP placeholder, which KFP replaces in a step's image and args at run
// time: a value holding one would read another input (or fail the run), not be what was given.
bool has_placeholder(const std::string& text) {
    return text.find("{{$") != std::string::npos;
}

}  // namespace

void setup_pipeline(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<PipelineOptions>();
    auto* sub = app.add_subcommand(
        "pipeline",
        "Print a Kubeflow Pipelines v2 pipeline whose step trains the job with kftrain");
    sub->footer(k_pipeline_examples);
    add_job_file_flags(*sub, o->job);
    sub->add_option("--name", o->name, "The pipeline's name (default: the job's)");
    sub->add_option("--image", o->image,
                    fmt::format("The step's image: kftrain and kubectl (Dockerfile.cli; "
                                "default: {})",
                                k_default_image));
    sub->add_option("--param", o->params,
                    "A job-file key that becomes a pipeline input, set per run (repeatable): "
                    "trainer.lr, replicas; its default is the job file's value");
    sub->add_option("-o,--output", o->output, "Output format: yaml or json")->default_str("yaml");
    run_when_parsed(*sub, o, ctx);
}

util::Status PipelineOptions::complete(const Context& ctx) {
    for (const std::string& set : job.sets) {
        if (has_placeholder(set)) {
            return util::error(fmt::format(
                "--set {}: holds a pipeline placeholder ({{{{$...}}}}), which KFP would replace at "
                "run time; to set a value per run, make the key an input with --param",
                util::escape_controls(set)));
        }
    }
    // It must render as submit would.
    auto rendered = load::load_and_render(job, ctx.global, ctx.err);
    if (!rendered) {
        return rendered.error_value();
    }
    if (rendered->code) {
        return util::error(
            fmt::format("{}: a pipeline step runs on the cluster, where this folder is not: ship "
                        "the code in the step's image instead, and remove code (got {})",
                        rendered->spec.source.locate("code.path"),
                        util::escape_controls(rendered->code->folder)),
            k_exit_bad_input);
    }
    if (rendered->spec.backend == manifest::k_backend_local) {
        return util::error(
            fmt::format("{}: a pipeline step submits the job to its cluster; remove the key "
                        "or set it to kubernetes (got local)",
                        rendered->spec.source.locate("backend")));
    }
    auto text = load::job_file_text(job);
    if (!text) {
        return text.error_value();
    }
    request.job_yaml = *text;
    request.job_name = rendered->spec.name;
    runs_trainer = rendered->spec.runs_trainer();
    request.namespace_ = rendered->spec.namespace_;
    request.name = name.value_or(rendered->spec.name);
    request.image = image.value_or(k_default_image);
    request.sets = job.sets;
    request.sdk_version = std::string("kftrain-") + KFTRAIN_VERSION;
    return util::ok_status();
}

util::Status PipelineOptions::validate() {
    auto parsed = view::parse_output_format(output, view::k_manifest_formats);
    if (!parsed) {
        return parsed.error_value();
    }
    format = *parsed;
    const auto printable = [](const std::string& text) {
        return std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c != '\x7f'; });
    };
    if (request.image.empty() || !printable(request.image)) {
        return util::error(fmt::format("--image: must be an image reference (got \"{}\")",
                                       util::escape_controls(request.image)));
    }
    if (has_placeholder(request.image)) {
        return util::error(fmt::format(
            "--image: holds a pipeline placeholder ({{{{$...}}}}), which KFP would replace at run "
            "time (got \"{}\")",
            util::escape_controls(request.image)));
    }
    // KFP's rule for a pipeline's name; it also goes into the header's comment lines.
    static const std::regex k_name("[a-z0-9]([a-z0-9-]{0,126}[a-z0-9])?");
    if (!std::regex_match(request.name, k_name)) {
        return util::error(fmt::format(
            "--name: must be at most 128 lower-case letters, digits and '-', starting and ending "
            "with a letter or digit (got \"{}\")",
            util::escape_controls(request.name)));
    }
    // Read through the bounded reader that loaded the job file: the same text, the same limits.
    auto job_doc = manifest::parse_yaml(request.job_yaml, job.file);
    const YAML::Node root = job_doc ? *job_doc : YAML::Node();
    for (const auto& key : params) {
        auto type = param_type(key);
        if (!type) {
            return type.error_value();
        }
        if (!runs_trainer && key.rfind("trainer.", 0) == 0) {
            return util::error(fmt::format(
                "--param {}: the job runs its own program, which trainer settings do not reach; "
                "pass the value in its args instead",
                key));
        }
        const std::string input = pipeline::input_name(key);
        for (const auto& p : request.params) {
            if (p.input == input) {
                return util::error(fmt::format("--param {}: given twice (got {})", key, key));
            }
        }
        if (input == pipeline::k_job_input || input == pipeline::k_namespace_input) {
            return util::error(
                fmt::format("--param {}: the input {} is kftrain's own", key, input));
        }
        request.params.push_back({key, input, *type, current_value(root, job.sets, key)});
    }
    return util::ok_status();
}

int PipelineOptions::run(Context& ctx) const {
    const YAML::Node spec = pipeline::render_pipeline(request);
    if (auto problems = pipeline::check_pipeline(spec); !problems.empty()) {
        return report_error(
            ctx,
            fmt::format("the pipeline kftrain made is not sound: {}", fmt::join(problems, "; ")),
            k_exit_job_failed);
    }
    if (format == view::OutputFormat::Json) {
        ctx.out << util::json_text(manifest::to_json(spec), 2) << "\n";
        return k_exit_ok;
    }
    // The SDK's header: the inputs and outputs with their Python types, in name order.
    std::vector<std::string> inputs = {fmt::format("{}: str", pipeline::k_job_input),
                                       fmt::format("{}: str", pipeline::k_namespace_input)};
    for (const auto& p : request.params) {
        inputs.push_back(
            fmt::format("{}: {} (the job file's {})", p.input, python_type(p.type), p.key));
    }
    std::sort(inputs.begin(), inputs.end());
    ctx.out << fmt::format("# PIPELINE DEFINITION\n# Name: {}\n# Made by: kftrain pipeline {}\n",
                           request.name, KFTRAIN_VERSION);
    ctx.out << "# Inputs:\n";
    for (const auto& input : inputs) {
        ctx.out << "#    " << input << "\n";
    }
    ctx.out << fmt::format("# Outputs:\n#    {}: dict\n#    {}: str\n", pipeline::k_metrics_output,
                           pipeline::k_state_output);
    ctx.out << manifest::to_yaml(spec);
    return k_exit_ok;
}

}  // namespace kftrain::cli
