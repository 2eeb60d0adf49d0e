#pragma once

// A TrainJob's status.trainerStatus (Kubeflow Trainer v2.2+) read as a job's progress: on the
// cluster from the TrainJob, locally from what the replicas posted to the job's own status
// server. One reading for both backends.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "progress/progress.h"

namespace kftrain::progress {

// The source of figures read from trainerStatus (Progress::source).
inline constexpr char k_trainer_status_source[] = "trainerStatus";

// Read trainerStatus into Progress: progressPercentage, estimatedRemainingSeconds,
// lastUpdatedTime, every metric by name as posted (Progress::metrics), and those the trainer
// names as its progress lines do (loss, accuracy, samples_per_sec, epoch, epochs, step,
// global_step, lr), else as the Kubeflow SDK and Transformers do (train_loss, eval_accuracy,
// learning_rate, ...) in Progress's own fields. Metric values are strings; an accuracy above
// 1 is read as a percentage. nullopt when nothing is there.
std::optional<Progress> trainer_status_progress(const nlohmann::json& trainer_status);

// Return whether Progress shows this metric in a field of its own (loss, train_loss,
// accuracy, eval_accuracy, samples_per_sec, lr, learning_rate, epoch, step, ...): the others
// are shown by name.
bool metric_has_field(const std::string& name);

// Merge two reports of a job's progress (a program's progress line and its posted
// trainerStatus): the newer one (by time; the one with a time when only one has it; a when
// neither does), with what it leaves out taken from the older, metrics by name, so a figure
// only one way reports (a percentage, a step) stays shown when the other reports next.
std::optional<Progress> merge_progress(std::optional<Progress> a, std::optional<Progress> b);

}  // namespace kftrain::progress
