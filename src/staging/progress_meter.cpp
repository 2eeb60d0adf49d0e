#include "staging/progress_meter.h"

#include <fmt/format.h>

#include <algorithm>

#include "staging/listing.h"
#include "util/terminal.h"

namespace kftrain::staging {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ProgressMeter::ProgressMeter(std::ostream& err, std::string label, uint64_t total)
    : m_err(err),
      m_label(std::move(label)),
      m_total(std::max<uint64_t>(total, 1)),
      m_terminal(util::is_live_terminal(err)),
      m_last(Clock::now()) {}

std::string ProgressMeter::line(uint64_t bytes) const {
    const uint64_t percent = std::min<uint64_t>(bytes * 100 / m_total, 99);
    return fmt::format("{}: {}% {} of {}", m_label, percent, format_bytes(bytes),
                       format_bytes(std::max(bytes, m_total)));
}

void ProgressMeter::update(uint64_t bytes) {
    const auto now = Clock::now();
    const auto every = m_terminal ? std::chrono::milliseconds(200) : std::chrono::seconds(5);
    if (now - m_last < every) {
        return;
    }
    m_last = now;
    if (m_terminal) {
        m_err << "\r\x1b[K" << line(bytes) << std::flush;
        m_shown = true;
    } else {
        m_err << line(bytes) << "\n" << std::flush;
    }
}

void ProgressMeter::finish() {
    if (m_shown) {
        m_err << "\r\x1b[K" << std::flush;
        m_shown = false;
    }
}

uint64_t tar_size_estimate(uint64_t bytes, uint64_t entries) {
    return entries * 512 + bytes + entries * 511 / 2 + 1024;
}

}  // namespace kftrain::staging
