#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

// What a program says of its progress, read from any of the ways it reports: kftrain's progress
// lines, the text programs already print, and Trainer's trainerStatus (progress_line.h,
// trainer_status.h). Pure: no files, no processes.
namespace kftrain::progress {

// The last progress line of the trainer (rank 0), parsed from its JSON.
struct Progress {
    std::string event;  // progress, epoch, eval, finish, ...
    std::optional<int> epoch;
    std::optional<int> epochs;
    std::optional<long long> step;
    std::optional<long long> steps_per_epoch;
    std::optional<double> loss;
    std::optional<double> accuracy;
    std::optional<double> samples_per_sec;
    std::optional<double> elapsed_s;
    std::optional<double> eta_s;
    std::string time;  // ISO-8601 UTC
    std::optional<long long> global_step;
    std::optional<double> lr;
    std::optional<double> epoch_time_s;
    std::optional<long long> samples;  // eval: samples evaluated; start: dataset size
    std::optional<int> rank;
    std::string message;                 // warning and error events
    std::string path;                    // checkpoint events
    std::optional<double> percent = {};  // done, 0-100: a TrainJob's trainerStatus
    std::vector<std::pair<std::string, std::string>> metrics = {};  // trainerStatus's, by name
    std::vector<double> rank_step_s = {};  // each rank's compute seconds per step, by rank
    std::optional<long long> last_checkpoint_step = {};  // checkpoint_failed: the newest written
    std::optional<double> steps_per_sec = {};  // a bar's rate: steps (its iterations) a second
    // Where the figures came from, when not from kftrain's progress lines: the format of the
    // text they were read from ("a tqdm bar", text_line.h) or "trainerStatus".
    std::string source = {};
};

// The program's last word on its checkpoints: its lead replica's last checkpoint or
// checkpoint_failed event (docs/progress.md). Where a resume starts, and whether the newest
// write failed (a full disk): status shows it, suspend fails on it, resume names it.
struct CheckpointReport {
    bool failed = false;
    std::optional<long long> step;         // the newest checkpoint written; none: none is
    std::optional<long long> failed_step;  // failed: the step whose checkpoint was not written
    std::string message;                   // failed: why
    std::string path;                      // written: where
    std::string time;
};

}  // namespace kftrain::progress
