#pragma once

// The names of the metrics kftrain-trainer posts in a TrainJob's
// status.trainerStatus.metrics (Kubeflow Trainer v2.2+), and kftrain status
// reads back: one definition for both sides. Values are strings there; loss
// and accuracy as fractions, as in the progress lines (progress_events.h).

namespace kftrain::wire::metric {

inline constexpr char k_loss[] = "loss";
inline constexpr char k_accuracy[] = "accuracy";
inline constexpr char k_samples_per_sec[] = "samples_per_sec";
inline constexpr char k_epoch[] = "epoch";
inline constexpr char k_eval_loss[] = "eval_loss";
inline constexpr char k_eval_accuracy[] = "eval_accuracy";

}  // namespace kftrain::wire::metric
