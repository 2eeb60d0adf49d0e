#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "trainer/loop/progress.h"
#include "trainer/trainer_status/payload.h"

namespace kftrain::trainer::trainer_status {

// Fold rank 0's progress events (src/wire/progress_events.h) into the trainerStatus they
// describe: progress from the global step, the ETA, and loss, accuracy, samples/s, epoch and
// the last evaluation as metrics. 100% only once training finished.
class EventStatus {
  public:
    // Take one event in; return true when it changes what a post would say (start, progress,
    // eval, finish), false for the others.
    bool apply(const std::string& event, const Fields& fields);
    // Tell whether the finish event came.
    bool finished() const { return m_finished; }
    // Return the status the events so far describe, observed at updated.
    TrainerStatus status(std::chrono::system_clock::time_point updated) const;

  private:
    void apply_start(const Fields& f);
    void apply_progress(const Fields& f);
    void apply_eval(const Fields& f);
    void apply_finish(const Fields& f);

    int64_t m_total_steps = 0;
    std::optional<int> m_percent;
    std::optional<int> m_eta;
    std::optional<double> m_loss;
    std::optional<double> m_accuracy;
    std::optional<double> m_samples_per_sec;
    std::optional<int64_t> m_epoch;
    std::optional<double> m_eval_loss;
    std::optional<double> m_eval_accuracy;
    bool m_finished = false;
};

// Return the percentage of total_steps done at global_step, rounded down and kept below 100
// (100 means finished); nullopt when the total is unknown.
std::optional<int> percent_done(int64_t global_step, int64_t total_steps);

// Return seconds as trainerStatus wants them: whole, from 0 to the int32 maximum.
int remaining_seconds(double seconds);

}  // namespace kftrain::trainer::trainer_status
