#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "progress/progress.h"

namespace kftrain::progress {

// The progress line contract (docs/progress.md): one JSON object per line with a string
// "event", as kftrain-trainer and any program print it. Parsed here once, for status, logs,
// diagnose and the measurement alike; views format what this returns.

// Return a line's JSON object when it is a progress line (an object with a string "event",
// nested at most util::k_max_json_depth); nullopt otherwise.
std::optional<nlohmann::json> progress_object(const std::string& line);

// Read a progress line's object into Progress, numbers range-checked and bounded.
Progress progress_from(const nlohmann::json& object);

// Write Progress as a progress line's object, its source included: how kftrain keeps what it
// read from a program's text (progress_reader.h) where it keeps a progress line. progress_from
// reads it back the same, its metrics as strings.
nlohmann::json progress_json(const Progress& progress);

// Parse one progress line (any event) into Progress; nullopt when the line is not one.
std::optional<Progress> parse_progress_line(const std::string& line);

// Return whether status should show this event as the job's progress
// (progress, epoch and finish carry loss, speed and ETA).
bool shows_progress(const Progress& progress);

// Return whether the event is about a checkpoint (checkpoint or checkpoint_failed).
bool is_checkpoint_event(const Progress& progress);

// Read a checkpoint or checkpoint_failed event into what status shows; nullopt for any other.
std::optional<CheckpointReport> checkpoint_report(const Progress& progress);

// Return the last checkpoint event among these lines, read as checkpoint_report does.
std::optional<CheckpointReport> last_checkpoint(const std::vector<std::string>& lines);

}  // namespace kftrain::progress
