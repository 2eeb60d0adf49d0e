#pragma once

#include <cstdint>
#include <string>

namespace kftrain::trainer {

// Name a non-finite value as people write it: nan, inf or -inf.
std::string nonfinite_text(double value);

// Count consecutive training steps whose loss was NaN or infinite (--nan-patience). Fed with
// values summed over ranks, it decides the same on every rank, so all ranks stop at the same
// step and none is left waiting in a collective.
class DivergenceGuard {
  public:
    explicit DivergenceGuard(int patience) : m_patience(patience) {}

    // Record a step: loss is the mean loss, nonfinite the number of ranks whose loss was not
    // finite; return true once patience such steps came in a row.
    bool record(int64_t global_step, double loss, double nonfinite);
    // Tell whether the last step's loss was not finite: its state must not be checkpointed.
    bool unhealthy() const { return m_streak > 0; }
    // Tell whether the last step began a run of non-finite steps: worth one warning.
    bool streak_started() const { return m_streak == 1; }
    // Return the warning for the last (non-finite) step.
    std::string warning() const;
    // Return the error that ends the run; newest_checkpoint is the step of the newest good
    // checkpoint (-1: none written), has_dir whether checkpoints are written at all.
    std::string error(int64_t newest_checkpoint, bool has_dir) const;

  private:
    int m_patience;
    int64_t m_streak = 0;
    int64_t m_step = 0;
    double m_loss = 0;
};

}  // namespace kftrain::trainer
