#include "pipeline/pipeline_spec.h"

#include <fmt/format.h>

#include <algorithm>

#include "manifest/yaml/emit.h"

namespace kftrain::pipeline {
namespace {

using manifest::string_node;

constexpr const char* k_component = "comp-train";
constexpr const char* k_executor = "exec-train";
constexpr const char* k_task = "train";

std::string input_placeholder(const std::string& name) {
    return fmt::format("{{{{$.inputs.parameters['{}']}}}}", name);
}

std::string output_placeholder(const std::string& name) {
    return fmt::format("{{{{$.outputs.parameters['{}'].output_file}}}}", name);
}

// A typed default as the SDK writes it: an integer as 2.0, a double, a boolean, a string.
YAML::Node default_node(ParameterType type, const std::string& text) {
    switch (type) {
        case ParameterType::Integer:
            return YAML::Node(text + ".0");
        case ParameterType::Double:
        case ParameterType::Boolean:
            return YAML::Node(text);
        case ParameterType::String:
            break;
    }
    return string_node(text);
}

YAML::Node definition(ParameterType type, const std::string& default_text, bool with_default) {
    YAML::Node node;
    if (with_default && !default_text.empty()) {
        node["defaultValue"] = default_node(type, default_text);
        node["isOptional"] = true;
    }
    node["parameterType"] = string_node(type_name(type));
    return node;
}

// The inputs: the job file, the namespace and each param, in name order as the SDK writes
// them. (Sorted as plain values: assigning a YAML::Node writes through to what it refers to.)
YAML::Node input_definitions(const PipelineRequest& r, bool with_defaults) {
    struct Input {
        std::string name;
        ParameterType type;
        std::string default_text;
    };
    std::vector<Input> inputs = {{k_job_input, ParameterType::String, r.job_yaml},
                                 {k_namespace_input, ParameterType::String, r.namespace_}};
    for (const PipelineParam& p : r.params) {
        inputs.push_back({p.input, p.type, p.default_text});
    }
    std::sort(inputs.begin(), inputs.end(),
              [](const Input& a, const Input& b) { return a.name < b.name; });
    YAML::Node node;
    for (const Input& input : inputs) {
        node["parameters"][input.name] = definition(input.type, input.default_text, with_defaults);
    }
    return node;
}

YAML::Node output_definitions() {
    YAML::Node node;
    node["parameters"][k_metrics_output]["parameterType"] = string_node("STRUCT");
    node["parameters"][k_state_output]["parameterType"] = string_node("STRING");
    return node;
}

// The step's command line: kftrain submits the job, follows it to its end (its exit code is
// the job's result), and writes the outputs.
YAML::Node container(const PipelineRequest& r) {
    YAML::Node c;
    std::vector<std::string> args = {"submit", "--job-yaml", input_placeholder(k_job_input),
                                     "--namespace", input_placeholder(k_namespace_input)};
    for (const auto& set : r.sets) {
        args.insert(args.end(), {"--set", set});
    }
    for (const PipelineParam& p : r.params) {
        args.insert(args.end(), {"--set", p.key + "=" + input_placeholder(p.input)});
    }
    args.insert(args.end(),
                {"--follow", "--no-progress", "--state-out", output_placeholder(k_state_output),
                 "--metrics-out", output_placeholder(k_metrics_output)});
    for (const auto& arg : args) {
        c["args"].push_back(string_node(arg));
    }
    c["command"].push_back(string_node("kftrain"));
    c["image"] = string_node(r.image);
    return c;
}

YAML::Node task(const PipelineRequest& r) {
    YAML::Node t;
    t["cachingOptions"]["enableCache"] = false;
    t["componentRef"]["name"] = string_node(k_component);
    std::vector<std::string> names = {k_job_input, k_namespace_input};
    for (const PipelineParam& p : r.params) {
        names.push_back(p.input);
    }
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        t["inputs"]["parameters"][name]["componentInputParameter"] = string_node(name);
    }
    t["taskInfo"]["name"] = string_node(k_task);
    return t;
}

YAML::Node root(const PipelineRequest& r) {
    YAML::Node node;
    for (const char* output : {k_metrics_output, k_state_output}) {
        YAML::Node from;
        from["outputParameterKey"] = string_node(output);
        from["producerSubtask"] = string_node(k_task);
        node["dag"]["outputs"]["parameters"][output]["valueFromParameter"] = from;
    }
    node["dag"]["tasks"][k_task] = task(r);
    node["inputDefinitions"] = input_definitions(r, true);
    node["outputDefinitions"] = output_definitions();
    return node;
}

}  // namespace

const char* type_name(ParameterType type) {
    switch (type) {
        case ParameterType::Integer:
            return "NUMBER_INTEGER";
        case ParameterType::Double:
            return "NUMBER_DOUBLE";
        case ParameterType::Boolean:
            return "BOOLEAN";
        case ParameterType::String:
            break;
    }
    return "STRING";
}

std::string input_name(const std::string& key) {
    std::string name = key;
    for (char& c : name) {
        if (c == '.' || c == '-') {
            c = '_';
        }
    }
    return name;
}

YAML::Node render_pipeline(const PipelineRequest& r) {
    YAML::Node spec;
    YAML::Node component;
    component["executorLabel"] = string_node(k_executor);
    component["inputDefinitions"] = input_definitions(r, false);
    component["outputDefinitions"] = output_definitions();
    spec["components"][k_component] = component;
    spec["deploymentSpec"]["executors"][k_executor]["container"] = container(r);
    spec["pipelineInfo"]["description"] = string_node(fmt::format(
        "Trains {} with kftrain: submits the job, follows it to its end and outputs its final "
        "state and metrics",
        r.job_name));
    spec["pipelineInfo"]["name"] = string_node(r.name);
    spec["root"] = root(r);
    spec["schemaVersion"] = string_node("2.1.0");
    spec["sdkVersion"] = string_node(r.sdk_version);
    return spec;
}

}  // namespace kftrain::pipeline
