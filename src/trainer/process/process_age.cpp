#include "trainer/process/process_age.h"

#include <time.h>
#include <unistd.h>

#include "util/proc_stat.h"

namespace kftrain::trainer::process {

std::optional<double> process_age_s() {
    const auto stat = util::read_proc_stat("self");
    const long per_second = ::sysconf(_SC_CLK_TCK);
    timespec now{};
    // The start time counts from boot, suspended time included: CLOCK_BOOTTIME's origin.
    if (!stat || per_second <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) {
        return std::nullopt;
    }
    const double age = static_cast<double>(now.tv_sec) + now.tv_nsec / 1e9 -
                       static_cast<double>(stat->start_ticks) / static_cast<double>(per_second);
    return age >= 0 ? std::optional<double>(age) : std::nullopt;
}

}  // namespace kftrain::trainer::process
