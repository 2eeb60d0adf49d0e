#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kftrain::manifest {

// The kind of value a job-file field holds.
enum class FieldType {
    String,
    Int,
    Float,
    Bool,
    Quantity,    // a Kubernetes resource quantity: 500m, 4, 8Gi
    StringList,  // [a, b]
    StringMap,   // {key: value}
    Env,         // {NAME: value | {secretKeyRef: {name, key}}}
    Object,      // fixed keys: children
    ObjectList,  // a list of objects with the children's keys
};

// One key of the job file: its type, default, documentation and limits.
struct FieldDef {
    std::string name;
    FieldType type = FieldType::String;
    std::string default_text;          // shown in docs and `kftrain init`; "" when none
    std::string doc;                   // one line
    std::vector<std::string> allowed;  // for strings: the allowed values, if a fixed set
    std::optional<double> min;         // for numbers
    std::optional<double> max;
    std::vector<FieldDef> children;  // for Object and ObjectList
};

// Return the schema of the whole job file (an Object).
const FieldDef& job_schema();

// Return the field at a dotted path ("runPolicy.backoffLimit"), or nullptr.
const FieldDef* find_field(const std::string& dotted_path);

// Describe a type for messages: "an integer", "a list of strings".
std::string describe_type(FieldType type);

// Return the trainer flag for a trainer key: "batchSize" -> "--batch-size".
std::string trainer_flag(const std::string& key);

}  // namespace kftrain::manifest
