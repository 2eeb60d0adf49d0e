#pragma once

namespace kftrain::wire {

// The progress events `kftrain-trainer --log-format json` prints, one JSON object a line,
// and `kftrain` reads (status, logs): a public format any program may print, documented in
// docs/progress.md. Header-only, so the trainer (the writer) and the CLI (the reader) spell
// every name once without linking each other.
//
// Version 1. Every line has event (the only member a reader requires), rank, world_size and
// time; v, the format's version, is optional (a reader skips lines of a later version); the
// rest depends on the event, and any event may add percent (0..100) and metrics (an object
// of a program's own metrics by name, numbers or strings):
//   start       model dataset epochs batch_size global_batch_size lr backend device threads
//               samples steps_per_epoch resumed_from (null unless resumed)
//   progress    epoch epochs step steps_per_epoch global_step loss accuracy samples_per_sec
//               lr elapsed_s eta_s
//   epoch       epoch epochs loss accuracy samples_per_sec epoch_time_s elapsed_s eta_s
//   eval        epoch loss accuracy samples
//   checkpoint  path epoch global_step
//   checkpoint_failed  epoch global_step message last_checkpoint_step (the newest written, or
//               null): the checkpoint of that step was not written; a resume starts from the
//               newest written one
//   finish      epochs global_step loss accuracy elapsed_s samples_per_sec
//   warning     message
//   error       message
// Epochs and steps count from 1; accuracy is a fraction (0.91, not 91).

// The version of the format this header describes: the value of "v".
inline constexpr int k_progress_format_version = 1;

// Names of the events: the value of the "event" member.
namespace event {
inline constexpr char k_start[] = "start";
inline constexpr char k_progress[] = "progress";
inline constexpr char k_epoch[] = "epoch";
inline constexpr char k_eval[] = "eval";
inline constexpr char k_checkpoint[] = "checkpoint";
inline constexpr char k_checkpoint_failed[] = "checkpoint_failed";
inline constexpr char k_finish[] = "finish";
inline constexpr char k_warning[] = "warning";
inline constexpr char k_error[] = "error";
}  // namespace event

// Names of the members of an event line.
namespace field {
inline constexpr char k_event[] = "event";
inline constexpr char k_version[] = "v";        // the format's version; 1 when absent
inline constexpr char k_percent[] = "percent";  // done, 0..100
inline constexpr char k_metrics[] = "metrics";  // {"name": number or string}
// Set by kftrain on what it read from a program's text (docs/progress.md), never printed by
// the trainer: the format the figures came from ("a tqdm bar"), and the bar's rate.
inline constexpr char k_source[] = "source";
inline constexpr char k_steps_per_sec[] = "steps_per_sec";
inline constexpr char k_rank[] = "rank";
inline constexpr char k_world_size[] = "world_size";
inline constexpr char k_time[] = "time";  // ISO-8601 UTC with milliseconds
inline constexpr char k_model[] = "model";
inline constexpr char k_dataset[] = "dataset";
inline constexpr char k_epoch[] = "epoch";
inline constexpr char k_epochs[] = "epochs";
inline constexpr char k_step[] = "step";
inline constexpr char k_steps_per_epoch[] = "steps_per_epoch";
inline constexpr char k_global_step[] = "global_step";
inline constexpr char k_loss[] = "loss";
inline constexpr char k_accuracy[] = "accuracy";
inline constexpr char k_samples_per_sec[] = "samples_per_sec";
inline constexpr char k_lr[] = "lr";
inline constexpr char k_elapsed_s[] = "elapsed_s";
inline constexpr char k_eta_s[] = "eta_s";
inline constexpr char k_epoch_time_s[] = "epoch_time_s";
inline constexpr char k_samples[] = "samples";  // start: data set size; eval: samples evaluated
inline constexpr char k_batch_size[] = "batch_size";
inline constexpr char k_global_batch_size[] = "global_batch_size";
inline constexpr char k_backend[] = "backend";
inline constexpr char k_device[] = "device";
inline constexpr char k_threads[] = "threads";
inline constexpr char k_memory_format[] =
    "memory_format";  // start: channels-last or contiguous, the layout of convolutions
inline constexpr char k_bucket_bytes[] =
    "bucket_bytes";  // start: gradient bucket capacity, or null
inline constexpr char k_resumed_from[] = "resumed_from";  // global step resumed from, or null
inline constexpr char k_message[] = "message";
// checkpoint_failed: the global step of the newest checkpoint written, or null when none is
inline constexpr char k_last_checkpoint_step[] = "last_checkpoint_step";
inline constexpr char k_path[] = "path";
// progress, optional: each rank's compute seconds per step over the steps since the last
// progress line, by rank (its steps without waiting for the others), for spotting a straggler;
// any program may report it.
inline constexpr char k_rank_step_s[] = "rank_step_s";
}  // namespace field

}  // namespace kftrain::wire
