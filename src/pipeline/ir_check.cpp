#include "pipeline/ir_check.h"

#include <fmt/format.h>

#include <cstdlib>
#include <regex>
#include <set>

namespace kftrain::pipeline {
namespace {

using Problems = std::vector<std::string>;

const std::set<std::string> k_types = {"STRING",  "NUMBER_INTEGER", "NUMBER_DOUBLE",
                                       "BOOLEAN", "LIST",           "STRUCT"};

// Return a map's child, or an undefined node when node is not a map or lacks it: the IR is
// read without a lookup ever throwing or inserting.
YAML::Node child(const YAML::Node& node, const std::string& key) {
    if (!node || !node.IsMap()) {
        return YAML::Node(YAML::NodeType::Undefined);
    }
    const YAML::Node& map = node;
    const YAML::Node found = map[key];
    return found ? found : YAML::Node(YAML::NodeType::Undefined);
}

std::string text_of(const YAML::Node& node) {
    return node && node.IsScalar() ? node.Scalar() : std::string();
}

bool has_key(const YAML::Node& map, const std::string& key) {
    return map && map.IsMap() && child(map, key);
}

// Return whether a default has its type's form.
bool default_fits(const std::string& type, const YAML::Node& value) {
    if (type == "LIST") {
        return value.IsSequence();
    }
    if (type == "STRUCT") {
        return value.IsMap();
    }
    if (!value.IsScalar()) {
        return false;
    }
    const std::string& text = value.Scalar();
    if (type == "BOOLEAN") {
        return value.Tag() != "!" && (text == "true" || text == "false");
    }
    if (type == "NUMBER_INTEGER" || type == "NUMBER_DOUBLE") {
        char* end = nullptr;
        std::strtod(text.c_str(), &end);
        return value.Tag() != "!" && !text.empty() && *end == '\0';
    }
    return true;  // STRING: any scalar
}

void check_definitions(const YAML::Node& defs, const std::string& path, Problems& problems) {
    if (!has_key(defs, "parameters")) {
        return;
    }
    for (const auto& entry : child(defs, "parameters")) {
        const std::string name = entry.first.Scalar();
        const std::string at = fmt::format("{}.parameters.{}", path, name);
        const std::string type = text_of(child(entry.second, "parameterType"));
        if (k_types.count(type) == 0) {
            problems.push_back(
                fmt::format("{}.parameterType: must be one of STRING, "
                            "NUMBER_INTEGER, NUMBER_DOUBLE, BOOLEAN, LIST, STRUCT "
                            "(got {})",
                            at, type.empty() ? "nothing" : type));
            continue;
        }
        if (child(entry.second, "defaultValue") &&
            !default_fits(type, child(entry.second, "defaultValue"))) {
            problems.push_back(fmt::format("{}.defaultValue: not of its type {}", at, type));
        }
    }
}

bool declares(const YAML::Node& component, const char* side, const char* kind,
              const std::string& name) {
    const YAML::Node defs = child(component, side);
    return has_key(defs, kind) && child(child(defs, kind), name);
}

// Check every placeholder of an executor's command and args against a component running it.
void check_placeholders(const YAML::Node& container, const YAML::Node& component,
                        const std::string& path, Problems& problems) {
    static const std::regex placeholder(
        R"(\{\{\$\.(inputs|outputs)\.(parameters|artifacts)\['([^']*)'\])");
    for (const char* list : {"command", "args"}) {
        const YAML::Node items = child(container, list);
        if (!items || !items.IsSequence()) {
            continue;
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            const std::string arg = text_of(items[i]);
            for (std::sregex_iterator it(arg.begin(), arg.end(), placeholder), end; it != end;
                 ++it) {
                const bool input = (*it)[1] == "inputs";
                const std::string kind = (*it)[2];
                const std::string name = (*it)[3];
                if (!declares(component, input ? "inputDefinitions" : "outputDefinitions",
                              kind.c_str(), name)) {
                    problems.push_back(
                        fmt::format("{}.{}[{}]: {} refers to no {} {} {}", path, list, i,
                                    it->str() + "...", input ? "input" : "output",
                                    kind == "parameters" ? "parameter" : "artifact", name));
                }
            }
        }
    }
}

// Check where one task input comes from.
void check_source(const YAML::Node& source, const YAML::Node& dag, const YAML::Node& scope,
                  const YAML::Node& components, const std::string& at, Problems& problems) {
    if (child(source, "componentInputParameter") || child(source, "componentInputArtifact")) {
        const bool parameter = static_cast<bool>(child(source, "componentInputParameter"));
        const std::string name = text_of(parameter ? child(source, "componentInputParameter")
                                                   : child(source, "componentInputArtifact"));
        if (!declares(scope, "inputDefinitions", parameter ? "parameters" : "artifacts", name)) {
            problems.push_back(fmt::format("{}: {} is not an input of the pipeline", at, name));
        }
        return;
    }
    const bool parameter = static_cast<bool>(child(source, "taskOutputParameter"));
    const YAML::Node from =
        parameter ? child(source, "taskOutputParameter") : child(source, "taskOutputArtifact");
    if (!from) {
        if (!child(source, "runtimeValue")) {
            problems.push_back(fmt::format("{}: comes from no input, task output or constant", at));
        }
        return;
    }
    const std::string producer = text_of(child(from, "producerTask"));
    const YAML::Node task = child(child(dag, "tasks"), producer);
    if (!task) {
        problems.push_back(fmt::format("{}.producerTask: {} is not a task", at, producer));
        return;
    }
    const std::string key =
        text_of(parameter ? child(from, "outputParameterKey") : child(from, "outputArtifactKey"));
    const YAML::Node component =
        child(components, text_of(child(child(task, "componentRef"), "name")));
    if (component &&
        !declares(component, "outputDefinitions", parameter ? "parameters" : "artifacts", key)) {
        problems.push_back(fmt::format("{}: task {} has no output {}", at, producer, key));
    }
}

void check_dag(const YAML::Node& scope, const YAML::Node& components, const std::string& path,
               Problems& problems);

void check_task(const std::string& name, const YAML::Node& task, const YAML::Node& scope,
                const YAML::Node& components, const std::string& path, Problems& problems) {
    const YAML::Node dag = child(scope, "dag");
    const std::string at = fmt::format("{}.dag.tasks.{}", path, name);
    const std::string ref = text_of(child(child(task, "componentRef"), "name"));
    const YAML::Node component = child(components, ref);
    if (!component) {
        problems.push_back(fmt::format("{}.componentRef.name: {} is not a component", at,
                                       ref.empty() ? "nothing" : ref));
        return;
    }
    for (const char* kind : {"parameters", "artifacts"}) {
        const YAML::Node given = child(child(task, "inputs"), kind);
        if (given && given.IsMap()) {
            for (const auto& input : given) {
                const std::string key = input.first.Scalar();
                const std::string in = fmt::format("{}.inputs.{}.{}", at, kind, key);
                if (!declares(component, "inputDefinitions", kind, key)) {
                    problems.push_back(fmt::format("{}: {} has no such input", in, ref));
                }
                check_source(input.second, dag, scope, components, in, problems);
            }
        }
        const YAML::Node wanted = child(child(component, "inputDefinitions"), kind);
        if (wanted && wanted.IsMap()) {
            for (const auto& input : wanted) {
                const bool optional =
                    child(input.second, "isOptional") || child(input.second, "defaultValue");
                if (!optional && !(given && child(given, input.first.Scalar()))) {
                    problems.push_back(fmt::format("{}.inputs.{}: {} is required by {}", at, kind,
                                                   input.first.Scalar(), ref));
                }
            }
        }
    }
    if (child(task, "dependentTasks") && child(task, "dependentTasks").IsSequence()) {
        for (const auto& dependent : child(task, "dependentTasks")) {
            if (!child(child(dag, "tasks"), text_of(dependent))) {
                problems.push_back(
                    fmt::format("{}.dependentTasks: {} is not a task", at, text_of(dependent)));
            }
        }
    }
}

void check_dag(const YAML::Node& scope, const YAML::Node& components, const std::string& path,
               Problems& problems) {
    const YAML::Node dag = child(scope, "dag");
    if (!has_key(dag, "tasks") || !child(dag, "tasks").IsMap() || child(dag, "tasks").size() == 0) {
        problems.push_back(fmt::format("{}.dag.tasks: must name at least one task", path));
        return;
    }
    for (const auto& task : child(dag, "tasks")) {
        check_task(task.first.Scalar(), task.second, scope, components, path, problems);
    }
    if (child(dag, "outputs") && child(child(dag, "outputs"), "parameters")) {
        for (const auto& output : child(child(dag, "outputs"), "parameters")) {
            const std::string name = output.first.Scalar();
            const std::string at = fmt::format("{}.dag.outputs.parameters.{}", path, name);
            const YAML::Node from = child(output.second, "valueFromParameter");
            const std::string producer = text_of(child(from, "producerSubtask"));
            const YAML::Node task = child(child(dag, "tasks"), producer);
            const YAML::Node component =
                task ? child(components, text_of(child(child(task, "componentRef"), "name")))
                     : YAML::Node();
            if (!task) {
                problems.push_back(fmt::format("{}: {} is not a task", at, producer));
            } else if (component && !declares(component, "outputDefinitions", "parameters",
                                              text_of(child(from, "outputParameterKey")))) {
                problems.push_back(fmt::format("{}: task {} has no output {}", at, producer,
                                               text_of(child(from, "outputParameterKey"))));
            }
            if (!declares(scope, "outputDefinitions", "parameters", name)) {
                problems.push_back(fmt::format("{}: not in {}.outputDefinitions", at, path));
            }
        }
    }
}

void check_components(const YAML::Node& spec, Problems& problems) {
    const YAML::Node components = child(spec, "components");
    const YAML::Node executors = child(child(spec, "deploymentSpec"), "executors");
    for (const auto& entry : components) {
        const std::string name = entry.first.Scalar();
        const YAML::Node component = entry.second;
        const std::string at = "components." + name;
        check_definitions(child(component, "inputDefinitions"), at + ".inputDefinitions", problems);
        check_definitions(child(component, "outputDefinitions"), at + ".outputDefinitions",
                          problems);
        if (child(component, "dag")) {
            check_dag(component, components, at, problems);
            continue;
        }
        const std::string label = text_of(child(component, "executorLabel"));
        const YAML::Node executor = executors ? child(executors, label) : YAML::Node();
        if (!executor) {
            problems.push_back(fmt::format("{}.executorLabel: {} is not an executor", at,
                                           label.empty() ? "nothing" : label));
        } else if (child(executor, "container")) {
            check_placeholders(child(executor, "container"), component,
                               "deploymentSpec.executors." + label + ".container", problems);
        }
    }
}

Problems check_spec(const YAML::Node& spec) {
    Problems problems;
    if (!spec || !spec.IsMap()) {
        return {"a pipeline must be a map (a PipelineSpec)"};
    }
    const std::string version = text_of(child(spec, "schemaVersion"));
    if (version != "2.1.0" && version != "2.0.0") {
        problems.push_back(fmt::format("schemaVersion: must be 2.1.0 or 2.0.0 (got {})",
                                       version.empty() ? "nothing" : version));
    }
    if (text_of(child(child(spec, "pipelineInfo"), "name")).empty()) {
        problems.push_back("pipelineInfo.name: must be set");
    }
    if (!has_key(spec, "components") || !child(spec, "components").IsMap()) {
        problems.push_back("components: must be a map of components");
        return problems;
    }
    check_components(spec, problems);
    if (!has_key(spec, "root")) {
        problems.push_back("root: must be set");
        return problems;
    }
    check_definitions(child(child(spec, "root"), "inputDefinitions"), "root.inputDefinitions",
                      problems);
    check_definitions(child(child(spec, "root"), "outputDefinitions"), "root.outputDefinitions",
                      problems);
    check_dag(child(spec, "root"), child(spec, "components"), "root", problems);
    return problems;
}

}  // namespace

std::vector<std::string> check_pipeline(const YAML::Node& spec) {
    try {
        return check_spec(spec);
    } catch (const YAML::Exception& e) {  // a node of another shape than the IR's
        return {fmt::format("not a pipeline: {}", e.what())};
    }
}

}  // namespace kftrain::pipeline
