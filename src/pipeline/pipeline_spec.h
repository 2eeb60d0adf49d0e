#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::pipeline {

// KFP's parameter types, as the IR names them (pipeline_spec.proto, ParameterType).
enum class ParameterType { String, Integer, Double, Boolean };

// Return the IR's name of a type: STRING, NUMBER_INTEGER, NUMBER_DOUBLE, BOOLEAN.
const char* type_name(ParameterType type);

// A job-file key that becomes a pipeline input, overriding the job file at run time.
struct PipelineParam {
    std::string key;    // the job file's dotted key: trainer.lr, replicas
    std::string input;  // the input's name: trainer_lr, replicas
    ParameterType type = ParameterType::String;
    std::string default_text;  // the job file's value (or the schema's default); "" none
};

// What `kftrain pipeline` renders: one training step that runs kftrain itself.
struct PipelineRequest {
    std::string name;                   // pipelineInfo.name
    std::string image;                  // the image of the step: kftrain and kubectl
    std::string job_yaml;               // the job file's text, the default of the job_yaml input
    std::string job_name;               // for descriptions
    std::string namespace_;             // the default of the namespace input
    std::vector<std::string> sets;      // --set given to `kftrain pipeline`: fixed in the step
    std::vector<PipelineParam> params;  // --param: pipeline inputs
    std::string sdk_version;            // sdkVersion to write
};

// The pipeline inputs kftrain always declares, and the outputs its step writes.
inline constexpr const char* k_job_input = "job_yaml";
inline constexpr const char* k_namespace_input = "namespace";
inline constexpr const char* k_state_output = "state";
inline constexpr const char* k_metrics_output = "metrics";

// Return the input name of a job-file key: trainer.lr -> trainer_lr.
std::string input_name(const std::string& key);

// Render the pipeline: a KFP v2 PipelineSpec (schemaVersion 2.1.0) whose one task runs
// `kftrain submit --job-yaml ... --follow` in the image, with each param's value passed by
// placeholder in a --set argument, and the job's final state and metrics written to its
// output parameters; the task is not cached (a training run is not a pure function of its
// inputs). Keys are written in the order the SDK writes them (sorted).
YAML::Node render_pipeline(const PipelineRequest& request);

}  // namespace kftrain::pipeline
