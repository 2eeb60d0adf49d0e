#pragma once

#include <cstddef>
#include <vector>

namespace kftrain::trainer {

// What every rank trained over the steps since the last sync point (a progress line, a
// checkpoint, a stop, the end of an epoch), summed over ranks.
struct IntervalSums {
    // Per step: the loss summed over the samples of every rank.
    std::vector<double> step_loss_sum;
    // Per step: the samples of every rank.
    std::vector<double> step_count;
    // Per step: how many ranks had a loss that was not finite.
    std::vector<double> step_nonfinite;
    double loss_sum = 0;
    double correct = 0;
    double count = 0;
    // A rank was asked to stop (SIGTERM) by the end of the interval.
    bool stop = false;

    std::size_t steps() const { return step_count.size(); }
    // Return a step's mean loss over every rank's samples.
    double step_loss(std::size_t i) const;
};

// Pack one rank's step losses (means over its batch), batch sizes, correct predictions and
// stop flag into the numbers summed over ranks at a sync point: three numbers per step, then two.
std::vector<double> pack_interval(const std::vector<double>& losses,
                                  const std::vector<double>& counts, double correct, bool stop);

// Unpack the sums over ranks of pack_interval's numbers for an interval of steps.
IntervalSums unpack_interval(const std::vector<double>& sums, std::size_t steps);

}  // namespace kftrain::trainer
