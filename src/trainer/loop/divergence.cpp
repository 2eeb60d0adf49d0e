#include "trainer/loop/divergence.h"

#include <fmt/format.h>

#include <cmath>

namespace kftrain::trainer {

std::string nonfinite_text(double value) {
    if (std::isnan(value)) {
        return "nan";
    }
    return value < 0 ? "-inf" : "inf";
}

bool DivergenceGuard::record(int64_t global_step, double loss, double nonfinite) {
    if (nonfinite == 0 && std::isfinite(loss)) {
        m_streak = 0;
        return false;
    }
    m_streak += 1;
    m_step = global_step;
    m_loss = loss;
    return m_streak >= m_patience;
}

std::string DivergenceGuard::warning() const {
    return fmt::format(
        "loss is {} at step {}: the run stops if it stays NaN or infinite for {} step(s) in a "
        "row (--nan-patience)",
        nonfinite_text(m_loss), m_step, m_patience);
}

std::string DivergenceGuard::error(int64_t newest_checkpoint, bool has_dir) const {
    const auto why = m_streak >= m_patience ? fmt::format("(--nan-patience {})", m_patience)
                                            : std::string("when training ended");
    std::string kept;
    if (has_dir) {
        kept =
            newest_checkpoint >= 0
                ? fmt::format("; the newest checkpoint, from step {}, is kept", newest_checkpoint)
                : std::string("; no checkpoint was written");
    }
    return fmt::format(
        "loss is not finite ({}) for the last {} step(s), up to step {} {}: training diverged "
        "(lower --lr?); stopped without checkpointing that state{}",
        nonfinite_text(m_loss), m_streak, m_step, why, kept);
}

}  // namespace kftrain::trainer
