#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "job/context.h"
#include "job/rendered_job.h"
#include "manifest/code.h"
#include "manifest/job_spec.h"
#include "manifest/render/render.h"
#include "util/result.h"

namespace kftrain::load {

using job::RenderedJob;

// The flags that name a job file and change it: shared by render, submit and
// the other verbs that read a job file.
struct JobInput {
    std::string file;
    // --job-yaml: the job file's text itself, instead of -f (a pipeline step, an agent); read
    // through the same bounded parser, named <job-yaml> in messages.
    std::optional<std::string> job_yaml;
    std::vector<std::string> sets;
    std::string template_file;
    std::optional<std::string>
        kind;  // --kind: PyTorchJob or TrainJob, overriding the job file's kind
    // --queue and --priority-class, overriding queue and priorityClass; given empty, an error
    // naming the flag (an unset variable in a script), never taken as unset.
    std::optional<std::string> queue;           // the Kueue LocalQueue
    std::optional<std::string> priority_class;  // its WorkloadPriorityClass
    // --retries: how many times the job starts again after a failure (runPolicy.backoffLimit,
    // manifest/retries.h); unset: the job file's.
    std::optional<int> retries;
    // --code: the folder the job ships (code.path), from the current folder.
    std::string code;
    // --code-root: every code folder must lie beneath it, and a relative one is taken from it
    // (an MCP server passes its --root).
    std::string code_root;
    // The flags a job file made from a command line was written from (kftrain run): dotted
    // key -> flag, so that messages name the flag ("--replicas: ...").
    std::map<std::string, std::string> key_flags;
};

// The name messages give a job file read from standard input (-f -).
inline constexpr const char* k_stdin_name = "<stdin>";
// The name messages give a job file given as text (--job-yaml).
inline constexpr const char* k_job_yaml_name = "<job-yaml>";

// Check --retries: 0 or more, at most manifest::k_max_retries; the message names the flag.
util::Status check_retries(const std::optional<int>& retries);

// Check --env-from-shell's names: "--env-from-shell: must be a variable name: letters, digits
// and _ (got 1X)".
util::Status check_env_from_shell(const std::vector<std::string>& names);

// Read a job file from fd (standard input for -f -) as a file is read: at most
// manifest::k_max_input_bytes, read once. A terminal or an empty input is an error naming -f.
util::Result<std::string> read_job_stream(int fd);

// Refuse - (standard input) as the value of a flag other than -f/--file, which alone reads it.
util::Status refuse_stdin(const std::string& flag, const std::string& value);

// Return the text of the job file the flags name, as written: the file, standard input (-f -,
// read once per process) or --job-yaml. Exactly one of -f and --job-yaml must be given.
util::Result<std::string> job_file_text(const JobInput& input);

// Load and validate the job the flags name (with -n from the globals); -f - reads the job
// file from standard input, once per process, and messages name it <stdin>.
util::Result<manifest::JobSpec> load_job(const JobInput& input, const job::BackendOptions& global);

// Parse --kind: PyTorchJob or TrainJob (as manifest::parse_kind reads them). Given, it must
// name one: "--kind: must be PyTorchJob or TrainJob (got \"\")" for an empty value, which is
// a mistake (an unset variable in a script), not a way to leave the kind unset.
util::Result<manifest::JobKind> parse_kind_flag(const std::string& text);

// Return the template the flags name (--template), else the one built in for the kind.
util::Result<manifest::Template> job_template(const JobInput& input, manifest::JobKind kind);

// Read the folder a loaded job ships (code.path: from the job file's folder, from the current
// one for -f - and --job-yaml; beneath --code-root when given), with the warnings about what
// was skipped on warn; none without code.
util::Result<std::optional<manifest::CodeBundle>> read_job_code(const manifest::JobSpec& spec,
                                                                const JobInput& input,
                                                                std::ostream& warn);

// Load, validate and render the job the flags name (with -n from the globals), reading the
// folder it ships (code) with the warnings about what was skipped on warn.
util::Result<RenderedJob> load_and_render(const JobInput& input, const job::BackendOptions& global,
                                          std::ostream& warn);

}  // namespace kftrain::load
