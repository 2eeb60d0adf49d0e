#pragma once

#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "cli/view/output_format.h"
#include "job/search_backend.h"
#include "tune/search_status.h"

namespace kftrain::cli::view {

// Return how a search that runs here reports: format_trial_line per finished trial, then the
// result table (print_search).
job::SearchReport search_report();

// Print a search the same way for both backends: a header (name, backend, algorithm, state,
// objective, trials done) and a table of trials with the best one marked by a '*' after its
// index, then the "Best:" line; wide adds each trial's start and message; JSON and YAML
// carry everything.
void print_search(std::ostream& out, const kftrain::tune::SearchStatus& status, OutputFormat format,
                  std::time_t now);

// Return a search as JSON (the -o json shape; -o yaml is the same tree).
nlohmann::json search_to_json(const kftrain::tune::SearchStatus& status, std::time_t now);

// Return the line a local search prints as a trial ends:
// "trial 3 mnist-tune-3 Succeeded  lr=0.0123 momentum=0.71  accuracy=0.9312".
std::string format_trial_line(const kftrain::tune::TrialRecord& trial,
                              const kftrain::tune::SearchStatus& status);

// Return "Best: trial 2 (accuracy=0.9512): lr=0.05 momentum=0.9", or "" when no trial has
// reached an objective value yet.
std::string format_best_line(const kftrain::tune::SearchStatus& status);

}  // namespace kftrain::cli::view
