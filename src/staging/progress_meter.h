#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace kftrain::staging {

// Shows how much of a copy has passed on stderr: on a terminal one line updated in place
// ("put: 42% 11.2 MiB of 26.7 MiB"), else a plain line at most every 5 seconds.
class ProgressMeter {
  public:
    // Start a meter for `total` bytes (an estimate: the tar stream's size) under a label.
    ProgressMeter(std::ostream& err, std::string label, uint64_t total);

    // Show that `bytes` have passed.
    void update(uint64_t bytes);
    // End the in-place line, if one was shown.
    void finish();

  private:
    std::string line(uint64_t bytes) const;

    std::ostream& m_err;
    std::string m_label;
    uint64_t m_total;
    bool m_terminal;
    bool m_shown = false;
    std::chrono::steady_clock::time_point m_last;
};

// Return the size a tar stream of files totalling `bytes` in `entries` entries about has:
// a 512-byte header per entry, data rounded up to 512 bytes, the two end blocks.
uint64_t tar_size_estimate(uint64_t bytes, uint64_t entries);

}  // namespace kftrain::staging
