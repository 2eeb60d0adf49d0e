#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "job/backend.h"
#include "job/context.h"
#include "job/reporter.h"
#include "manifest/code.h"
#include "manifest/job_spec.h"
#include "manifest/render/render.h"
#include "tune/search_status.h"
#include "tune/tune_spec.h"
#include "util/result.h"

namespace kftrain::job {

// How a search that runs here reports as it goes: a line per finished trial, then the result
// table. The tune verb fills both from its views; a search left without them prints neither.
struct SearchReport {
    std::function<std::string(const kftrain::tune::TrialRecord&,
                              const kftrain::tune::SearchStatus&)>
        trial_line;
    std::function<void(std::ostream&, const kftrain::tune::SearchStatus&)> summary;
};

// A search ready to start: the job it tunes, the search, and the Experiment that wraps it.
struct SearchRequest {
    manifest::JobSpec job;            // as loaded, with --set and -n applied
    kftrain::tune::TuneSpec spec;     // checked (tune/katib_checks.h)
    YAML::Node experiment;            // the Katib Experiment (tune/experiment.h)
    manifest::Template job_template;  // renders each local trial's job (--template or built in)
    // The folder the job ships (code), read once for every trial, and the ConfigMap that holds
    // it on a cluster, named after the search; none without code.
    std::optional<manifest::CodeBundle> code;
    YAML::Node code_config_map;
    job::DryRun dry_run = job::DryRun::None;  // None or Server; client dry runs print and stop
    bool replace = false;  // --replace: locally, delete an earlier search of the name first
    std::vector<std::string> env_from_shell;  // locally: shell variables every trial gets
    SearchReport report;                      // locally: how trials and the result print
};

// Where searches run: Katib on the cluster, or trials as local jobs on this machine. The
// `tune` verbs talk to this interface, so both print the same table and exit the same way.
// Errors carry the exit code (util::Error::code) from exit_codes.h.
class SearchBackend {
  public:
    virtual ~SearchBackend() = default;

    // Return whether searches run on this machine (their trials' jobs are local jobs).
    virtual bool on_this_machine() const = 0;
    // Return the names of the searches (shell completion).
    virtual util::Result<std::vector<std::string>> names() = 0;
    // Start a search. A cluster applies the Experiment, says "experiment.kubeflow.org/NAME
    // created" on report.out and returns 0; locally the trials run here, `parallel` at a time,
    // to the end of the search, a line per finished trial then the result table on report.out,
    // and the search's exit code is returned: 0 Succeeded, 1 Failed, 130 stopped by a signal.
    // An error (with its exit code) when the search cannot start or a trial cannot.
    virtual util::Result<int> start(const SearchRequest& request, Reporter& report) = 0;
    // Read a search's state (error code 3 when it does not exist).
    virtual util::Result<kftrain::tune::SearchStatus> status(const std::string& name) = 0;
    // Return the name of a trial's job: trial is its index in the table ("3") or its name
    // (error code 3 when the search has no such trial).
    virtual util::Result<std::string> trial_job(const std::string& name,
                                                const std::string& trial) = 0;
    // Delete a search and its trials' jobs; locally, a running search is stopped first (its
    // trials with it) before this returns. Return the line to print, which says what went.
    virtual util::Result<std::string> remove(const std::string& name) = 0;
};

}  // namespace kftrain::job
