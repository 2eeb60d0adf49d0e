#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kftrain::cli::completion {

// What the value of a flag or argument is, for completion.
enum class ValueKind {
    Free,              // anything: nothing to offer
    Closed,            // one of a fixed set
    JobName,           // a job the backend lists
    SearchName,        // a search the backend lists
    QueueName,         // a queue jobs wait in: a Kueue LocalQueue, or a local queue
    ReplicaName,       // a replica or replica type of the job named on the line
    TrialReplicaName,  // one of the job of the trial named on the line (tune logs --trial)
    TrialName,         // a trial (number or name) of the search named on the line
    ClaimName,         // a PersistentVolumeClaim of the namespace
    GpuType,           // a GPU type of the price catalog (--prices as typed, else the default)
    JobFile,           // a YAML file (job file, template, price catalog)
    AnyFile,           // a file of any kind (kubeconfig, profile)
};

// The kind of value and, when Closed, the values.
struct ValueSource {
    ValueKind kind = ValueKind::Free;
    std::vector<std::string> values;
};

// Return the extensions a JobFile has: yaml, yml.
const std::vector<std::string>& job_file_extensions();

// Return what option of command takes (a flag's value, or a positional argument). The closed
// sets are the very lists the verbs' validate() checks against (output formats, --dry-run,
// --kind, --for, --algorithm, the shells of `completion`); --gpu takes the GPU types of the
// price catalog it is checked against.
ValueSource value_source(const CLI::App& command, const CLI::Option& option);

// Return command's path below the app: "status", "tune status"; "" for the app.
std::string command_path(const CLI::App& command);

}  // namespace kftrain::cli::completion
