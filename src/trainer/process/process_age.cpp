#include "trainer/process/process_age.h"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace kftrain::trainer::process {

std::optional<long long> stat_start_ticks(const std::string& stat_line) {
    const auto close = stat_line.rfind(')');
    if (close == std::string::npos) {
        return std::nullopt;
    }
    // After ") " come the fields from the 3rd (state) on; the start time is the 22nd.
    std::istringstream rest(stat_line.substr(close + 1));
    std::string field;
    for (int i = 3; i <= 22; ++i) {
        if (!(rest >> field)) {
            return std::nullopt;
        }
    }
    try {
        std::size_t used = 0;
        const long long ticks = std::stoll(field, &used);
        if (used != field.size() || ticks < 0) {
            return std::nullopt;
        }
        return ticks;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> process_age_s() {
    std::ifstream in("/proc/self/stat");
    std::string line;
    if (!std::getline(in, line)) {
        return std::nullopt;
    }
    const auto ticks = stat_start_ticks(line);
    const long per_second = ::sysconf(_SC_CLK_TCK);
    timespec now{};
    // The start time counts from boot, suspended time included: CLOCK_BOOTTIME's origin.
    if (!ticks || per_second <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) {
        return std::nullopt;
    }
    const double age = static_cast<double>(now.tv_sec) + now.tv_nsec / 1e9 -
                       static_cast<double>(*ticks) / static_cast<double>(per_second);
    return age >= 0 ? std::optional<double>(age) : std::nullopt;
}

}  // namespace kftrain::trainer::process
