#include "util/proc_stat.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace kftrain::util {

std::optional<ProcStat> parse_proc_stat(const std::string& line) {
    const auto close = line.rfind(')');
    if (close == std::string::npos) {
        return std::nullopt;
    }
    // After ") " come the fields from the 3rd (state) on; utime and stime are the 14th and
    // 15th, the start time is the 22nd.
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
        if (i == 4) {
            stat.parent = std::strtoll(field.c_str(), nullptr, 10);
        }
        if (i == 14 || i == 15) {
            stat.cpu_ticks += std::strtoull(field.c_str(), nullptr, 10);
        }
    }
    std::string vsize;
    std::string rss;
    if (rest >> vsize >> rss) {  // the 23rd and 24th
        stat.rss_pages = std::strtoll(rss.c_str(), nullptr, 10);
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
    // A process that ends while it is read makes libstdc++'s filebuf throw (read() fails with
    // ESRCH): it is gone, as when the file cannot be opened.
    try {
        std::ifstream in("/proc/" + pid + "/stat");
        std::string line;
        if (!std::getline(in, line)) {
            return std::nullopt;
        }
        return parse_proc_stat(line);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::map<long long, ProcStat> read_all_proc_stats() {
    std::map<long long, ProcStat> out;
    if (DIR* proc = ::opendir("/proc")) {
        while (const dirent* entry = ::readdir(proc)) {
            const std::string name = entry->d_name;
            if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
                continue;
            }
            if (auto stat = read_proc_stat(name)) {
                out.emplace(std::strtoll(name.c_str(), nullptr, 10), *stat);
            }
        }
        ::closedir(proc);
    }
    return out;
}

std::vector<long long> child_processes(long long pid, bool all) {
    std::multimap<long long, long long> children;  // parent -> child
    for (const auto& [child, stat] : read_all_proc_stats()) {
        children.emplace(stat.parent, child);
    }
    std::vector<long long> out;
    std::vector<long long> parents = {pid};
    while (!parents.empty()) {
        const long long parent = parents.back();
        parents.pop_back();
        const auto [first, last] = children.equal_range(parent);
        for (auto it = first; it != last; ++it) {
            out.push_back(it->second);
            if (all) {
                parents.push_back(it->second);
            }
        }
    }
    return out;
}

bool environment_has(long long pid, const std::string& entry) {
    try {  // a process that ends meanwhile makes the read throw, as read_proc_stat says
        std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
        constexpr size_t k_max_bytes = 1 << 20;
        size_t read = 0;
        for (std::string item; read < k_max_bytes && std::getline(in, item, '\0');) {
            if (item == entry) {
                return true;
            }
            read += item.size() + 1;
        }
    } catch (const std::exception&) {
    }
    return false;
}

}  // namespace kftrain::util
