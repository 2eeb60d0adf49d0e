#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "manifest/job_spec.h"
#include "util/result.h"

namespace kftrain::manifest {

// Command-line changes applied on top of the job file.
struct Overrides {
    std::vector<std::string> sets;              // "dotted.key=value", from --set
    std::optional<std::string> namespace_;      // from -n/--namespace
    std::optional<JobKind> kind;                // from --kind
    std::optional<std::string> queue;           // from --queue
    std::optional<std::string> priority_class;  // from --priority-class
    std::optional<int> retries;                 // from --retries: runPolicy.backoffLimit
    // Keys a command line wrote into the job file itself (kftrain run): dotted path -> the
    // flag, named in messages instead of a line of a file the user never saw.
    std::map<std::string, std::string> key_flags;
};

// Load a job file: parse, apply overrides, type-check, fill defaults, validate.
util::Result<JobSpec> load_job_file(const std::string& path, const Overrides& overrides);

// Load a job from YAML text; display_name names it in messages.
util::Result<JobSpec> load_job_text(const std::string& text, const std::string& display_name,
                                    const Overrides& overrides);

// Read a whole file, with a message naming it when that fails.
util::Result<std::string> read_file(const std::string& path);

}  // namespace kftrain::manifest
