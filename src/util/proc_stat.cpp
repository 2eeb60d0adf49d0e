#include "util/proc_stat.h"

#include <fstream>
#include <sstream>

namespace kftrain::util {

std::optional<ProcStat> parse_proc_stat(const std::string& line) {
    const auto close = line.rfind(')');
    if (close == std::string::npos) {
        return std::nullopt;
    }
    // After ") " come the fields from the 3rd (state) on; the start time is the 22nd.
    std::istringstream rest(line.substr(close + 1));
    std::string field;
    ProcStat stat;
    for (int i = 3; i <= 22; ++i) {
        if (!(rest >> field)) {
            return std::nullopt;
        }
        if (i == 3) {
            stat.state = field[0];
        }
    }
    if (field.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    try {
        stat.start_ticks = std::stoull(field);
    } catch (const std::exception&) {
        return std::nullopt;  // out of range
    }
    return stat;
}

std::optional<ProcStat> read_proc_stat(const std::string& pid) {
    std::ifstream in("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(in, line)) {
        return std::nullopt;
    }
    return parse_proc_stat(line);
}

}  // namespace kftrain::util
