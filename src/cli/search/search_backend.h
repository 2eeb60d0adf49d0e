#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/job/backend.h"
#include "manifest/job_spec.h"
#include "manifest/render/render.h"
#include "tune/search_status.h"
#include "tune/tune_spec.h"
#include "util/result.h"

namespace kftrain::cli::search {

// A search ready to start: the job it tunes, the search, and the Experiment that wraps it.
struct SearchRequest {
    manifest::JobSpec job;            // as loaded, with --set and -n applied
    kftrain::tune::TuneSpec spec;     // checked (tune/katib_checks.h)
    YAML::Node experiment;            // the Katib Experiment (tune/experiment.h)
    manifest::Template job_template;  // renders each local trial's job (--template or built in)
    job::DryRun dry_run = job::DryRun::None;  // None or Server; client dry runs print and stop
    bool replace = false;  // --replace: locally, delete an earlier search of the name first
    std::vector<std::string> env_from_shell;  // locally: shell variables every trial gets
};

// Where searches run: Katib on the cluster, or trials as local jobs on this machine. The
// `tune` verbs talk to this interface, so both print the same table and exit the same way.
// Errors carry the exit code (util::Error::code) from exit_codes.h.
class SearchBackend {
  public:
    virtual ~SearchBackend() = default;

    // Return "kubernetes" or "local".
    virtual std::string name() const = 0;
    // Start a search and return the exit code. A cluster applies the Experiment and prints
    // "experiment.kubeflow.org/NAME created"; locally the trials run here, `parallel` at a
    // time, to the end of the search: a line per finished trial, then the result table.
    virtual int start(const SearchRequest& request, Context& ctx) = 0;
    // Read a search's state (error code 3 when it does not exist).
    virtual util::Result<kftrain::tune::SearchStatus> status(const std::string& name) = 0;
    // Return the name of a trial's job: trial is its index in the table ("3") or its name
    // (error code 3 when the search has no such trial).
    virtual util::Result<std::string> trial_job(const std::string& name,
                                                const std::string& trial) = 0;
    // Delete a search and its trials' jobs; locally, a running search is stopped first (its
    // trials with it) before this returns.
    virtual util::Status remove(const std::string& name) = 0;
};

}  // namespace kftrain::cli::search
