#pragma once

#include <yaml-cpp/yaml.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/context.h"
#include "manifest/job_spec.h"
#include "manifest/render.h"
#include "util/result.h"

namespace kftrain::cli::job {

// The flags that name a job file and change it: shared by render, submit and
// the other verbs that read a job file.
struct JobInput {
    std::string file;
    std::vector<std::string> sets;
    std::string template_file;
    std::string kind;  // --kind: PyTorchJob or TrainJob, overriding the job file's kind
};

// Add -f/--file and --set to a verb that reads a job file.
void add_job_file_flags(CLI::App& sub, JobInput& input);

// Add -f/--file, --set, --kind and --template to a verb that renders the job.
void add_job_input_flags(CLI::App& sub, JobInput& input);

// A job loaded and rendered into its PyTorchJob or TrainJob.
struct RenderedJob {
    manifest::JobSpec spec;
    YAML::Node manifest;
};

// Load and validate the job the flags name (with -n from the globals).
util::Result<manifest::JobSpec> load_job(const JobInput& input, const GlobalOptions& global);

// Return the template the flags name (--template), else the one built in for the kind.
util::Result<manifest::Template> job_template(const JobInput& input, manifest::JobKind kind);

// Load, validate and render the job the flags name (with -n from the globals).
util::Result<RenderedJob> load_and_render(const JobInput& input, const GlobalOptions& global);

}  // namespace kftrain::cli::job
