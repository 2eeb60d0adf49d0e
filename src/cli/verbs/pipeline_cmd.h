#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "load/job_input.h"
#include "pipeline/pipeline_spec.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain pipeline` takes.
struct PipelineOptions {
    load::JobInput job;
    // Given empty (an unset variable in a script), an error naming the flag.
    std::optional<std::string> name;   // --name: the pipeline's; default: the job's
    std::optional<std::string> image;  // --image: the step's image (kftrain and kubectl)
    std::vector<std::string> params;   // --param KEY: job-file keys that become inputs
    std::string output;                // -o as typed

    // Derived by complete() and validate().
    pipeline::PipelineRequest request;
    view::OutputFormat format = view::OutputFormat::Yaml;
    bool runs_trainer = true;  // the job runs kftrain-trainer: trainer.* keys apply

    // Load and render the job file (it must render as submit would), and read its text.
    util::Status complete(const Context& ctx);
    // Check --name, --image, every --param (a scalar key of the job file) and -o.
    util::Status validate();
    // Print the pipeline, after checking it as the IR's consumers would; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain pipeline`.
void setup_pipeline(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
