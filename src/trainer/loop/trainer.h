#pragma once

// The Trainer, which run_trainer() drives: internal to loop/, its epoch loop in trainer.cpp
// and its checkpoints in trainer_checkpoint.cpp.

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trainer/checkpoint/position.h"
#include "trainer/loop/divergence.h"
#include "trainer/loop/interval.h"
#include "trainer/loop/run_logger.h"
#include "trainer/loop/session.h"
#include "trainer/loop/step_sync.h"
#include "trainer/metrics/registry.h"
#include "util/result.h"

namespace kftrain::trainer {

// Sum loss, correct predictions and samples over a span of steps, summed over ranks.
struct Tally {
    double loss_sum = 0, correct = 0, count = 0;
    void add(const IntervalSums& sums) {
        loss_sum += sums.loss_sum;
        correct += sums.correct;
        count += sums.count;
    }
    double loss() const { return count > 0 ? loss_sum / count : 0; }
    double accuracy() const { return count > 0 ? correct / count : 0; }
};

// Drive the epochs of one rank: steps, logging, evaluation and checkpoints.
class Trainer {
  public:
    Trainer(Session& s, RunLogger& tracker, metrics::TrainerMetrics& exported)
        : m_s(s),
          m_tracker(tracker),
          m_exported(exported),
          m_divergence(s.options.nan_patience),
          m_stop_vote(s.comm.get()) {}
    // Resume from the newest usable checkpoint, train the epochs left and return the exit
    // code (0 done, 1 failed, process::k_exit_terminated stopped by a signal).
    int run();

  private:
    // Load rank 0's newest usable checkpoint on every rank; return its position (step 0 when
    // there is none).
    util::Result<checkpoint::TrainPosition> resume();
    // On rank 0: remove what interrupted checkpoint writes left, then load the newest usable
    // checkpoint, skipping damaged ones with a warning; return its payload for the other ranks
    // ("" when there is none and training starts at step 0).
    util::Result<std::string> pick_checkpoint(checkpoint::TrainPosition& pos);
    // Emit a warning event.
    void warn(const std::string& message);
    // Run one step; its loss and accuracy stay on the device until the next sync point.
    void train_step(const std::vector<int64_t>& indices, int64_t step);
    // Feed the guard the steps of an interval, summed over ranks so that every rank counts the
    // same non-finite steps and all stop at the same step; return true once it says stop.
    bool check_divergence(const IntervalSums& sums);
    // Emit a progress event for the steps since the last one, and log them to the tracker.
    void log_progress(int64_t epoch, int64_t step, const Tally& tally, const IntervalSums& sums);
    // Run the steps of one epoch from first_step; return false when a stop was requested or
    // the loss diverged. Ranks exchange loss and accuracy only at sync points: a progress line,
    // a checkpoint, a stop, the epoch's end.
    bool run_epoch(int64_t epoch, int64_t first_step);
    // Evaluate on the test set, split over ranks, and emit the result.
    void evaluate(int64_t epoch);
    // Write a checkpoint from rank 0; epoch_done counts the epochs finished. A state reached
    // through a non-finite loss is never written: it would replace the last good checkpoint.
    void write_checkpoint(int64_t epoch_done);
    // Say that this step's checkpoint was not written, and why, as a checkpoint_failed event
    // naming the newest one written: status shows it, suspend fails on it, resume says what it
    // cost.
    void checkpoint_failed(int64_t epoch_done, const std::string& why);
    // Write the parameters to $KFTRAIN_PARAMS_OUT.rankN when it is set (for tests).
    void dump_params();
    // Emit the start event, and rank 0's parameters to the tracker.
    void announce_start();
    // Emit how the run ended: stopped, diverged or finished.
    void announce_end();
    // Return the name of the gradients' backend ("none" with one rank).
    const char* backend() const;
    // Return the seconds since training started.
    double elapsed() const;
    // Return the seconds the steps left should take at the pace so far.
    double eta() const;

    Session& m_s;
    RunLogger& m_tracker;
    // What the metrics endpoint serves (updated whether or not one is served).
    metrics::TrainerMetrics& m_exported;
    int64_t m_global_step = 0;
    int64_t m_start_step = 0;
    int64_t m_last_checkpoint = -1;  // the step last checkpointed or attempted
    int64_t m_last_written = -1;     // rank 0: the step of the newest checkpoint written
    DivergenceGuard m_divergence;
    StepMetrics m_metrics;
    StopVote m_stop_vote;
    // The last training batch, to check a state before it is checkpointed.
    std::pair<torch::Tensor, torch::Tensor> m_last_batch;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point m_window_start = std::chrono::steady_clock::now();
    int64_t m_window_samples = 0;
    Tally m_last_epoch;
    // Samples trained by every rank since start, as counted (a short last batch counts short).
    double m_samples_trained = 0;
    // The last evaluation's loss and accuracy: what a run that trained no step reports.
    std::optional<std::pair<double, double>> m_last_eval;
    bool m_stop = false;
};

}  // namespace kftrain::trainer
