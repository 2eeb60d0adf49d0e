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
    // Per rank: the seconds it computed over the interval (its steps without the time it
    // waited for the others in the gradients' all-reduce); empty when not shared.
    std::vector<double> rank_compute_s;

    std::size_t steps() const { return step_count.size(); }
    // Return a step's mean loss over every rank's samples.
    double step_loss(std::size_t i) const;
};

// One rank's compute time over an interval, shared in the sync point's all-reduce: each rank
// fills its own slot of world slots, so the sum holds every rank's (a straggler shows).
struct RankTime {
    int rank = 0;
    int world = 0;  // 0: no slots
    double compute_s = 0;
};

// Pack one rank's step losses (means over its batch), batch sizes, correct predictions, stop
// flag and compute time into the numbers summed over ranks at a sync point: three numbers per
// step, then two, then one per rank.
std::vector<double> pack_interval(const std::vector<double>& losses,
                                  const std::vector<double>& counts, double correct, bool stop,
                                  const RankTime& time = {});

// Unpack the sums over ranks of pack_interval's numbers for an interval of steps of world ranks
// (0: no compute slots).
IntervalSums unpack_interval(const std::vector<double>& sums, std::size_t steps, int world = 0);

}  // namespace kftrain::trainer
