#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace kftrain::pipeline {

// Check a compiled KFP v2 pipeline (a PipelineSpec, as the SDK writes it) for what makes the
// backend refuse or misrun it, and return every problem, each naming its path
// ("root.dag.tasks.train.componentRef.name: comp-x is not a component"); none when sound:
//   - schemaVersion 2.0.0 or 2.1.0, pipelineInfo.name, root.dag with tasks;
//   - every task names a real component; every component a real executor (or has a dag);
//   - every placeholder in an executor's command and args names an input or output of each
//     component that runs it ({{$.inputs.parameters['x']}}, {{$.inputs.artifacts['x']...}},
//     {{$.outputs.parameters['x'].output_file}}, {{$.outputs.artifacts['x']...}});
//   - a task's inputs are its component's, each from a pipeline or DAG input, another task's
//     output or a constant, and none required is missing; dependentTasks are tasks;
//   - a DAG's outputs come from its tasks' outputs and are declared;
//   - parameter types are the IR's, and each default has its type's form (an integer or
//     double a number, a boolean true or false, a list a list, a struct a map).
std::vector<std::string> check_pipeline(const YAML::Node& spec);

}  // namespace kftrain::pipeline
