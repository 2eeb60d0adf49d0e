#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/context.h"
#include "cli/view/output_format.h"
#include "load/job_input.h"
#include "util/result.h"

namespace kftrain::cli {

// Everything `kftrain render` takes.
struct RenderOptions {
    load::JobInput job;
    std::string output;                                    // -o as typed
    bool pod_monitor = false;                              // --pod-monitor
    view::OutputFormat format = view::OutputFormat::Yaml;  // derived: -o parsed
    job::RenderedJob rendered;                             // derived: the job file, rendered

    // Load and render the job file (errors name the file, line and field).
    util::Status complete(const Context& ctx);
    // Parse -o, and refuse --pod-monitor for a job that serves no metrics; the message names
    // the flag and the value.
    util::Status validate();
    // Print the rendered job; return the exit code.
    int run(Context& ctx) const;
};

// Register `kftrain render`.
void setup_render(CLI::App& app, Context& ctx);

}  // namespace kftrain::cli
