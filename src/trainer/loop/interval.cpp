#include "trainer/loop/interval.h"

#include <algorithm>
#include <cmath>

namespace kftrain::trainer {

double IntervalSums::step_loss(std::size_t i) const {
    return step_loss_sum[i] / std::max(step_count[i], 1.0);
}

std::vector<double> pack_interval(const std::vector<double>& losses,
                                  const std::vector<double>& counts, double correct, bool stop,
                                  const RankTime& time) {
    const std::size_t steps = losses.size();
    std::vector<double> out(3 * steps + 2 + static_cast<std::size_t>(time.world), 0.0);
    for (std::size_t i = 0; i < steps; ++i) {
        out[i] = losses[i] * counts[i];
        out[steps + i] = counts[i];
        out[2 * steps + i] = std::isfinite(losses[i]) ? 0 : 1;
    }
    out[3 * steps] = correct;
    out[3 * steps + 1] = stop ? 1 : 0;
    if (time.rank >= 0 && time.rank < time.world) {
        out[3 * steps + 2 + static_cast<std::size_t>(time.rank)] = time.compute_s;
    }
    return out;
}

IntervalSums unpack_interval(const std::vector<double>& sums, std::size_t steps, int world) {
    IntervalSums s;
    s.step_loss_sum.assign(sums.begin(), sums.begin() + steps);
    s.step_count.assign(sums.begin() + steps, sums.begin() + 2 * steps);
    s.step_nonfinite.assign(sums.begin() + 2 * steps, sums.begin() + 3 * steps);
    for (std::size_t i = 0; i < steps; ++i) {
        s.loss_sum += s.step_loss_sum[i];
        s.count += s.step_count[i];
    }
    s.correct = sums[3 * steps];
    s.stop = sums[3 * steps + 1] > 0;
    const std::size_t slots = 3 * steps + 2;
    if (world > 0 && sums.size() >= slots + static_cast<std::size_t>(world)) {
        s.rank_compute_s.assign(sums.begin() + static_cast<long>(slots),
                                sums.begin() + static_cast<long>(slots) + world);
    }
    return s;
}

}  // namespace kftrain::trainer
