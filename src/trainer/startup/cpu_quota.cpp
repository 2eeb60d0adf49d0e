#include "trainer/startup/cpu_quota.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace kftrain::trainer {
namespace {

std::optional<std::string> read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) {
        return std::nullopt;
    }
    return line;
}

std::optional<double> quota_from(const std::string& quota, const std::string& period) {
    try {
        const double q = std::stod(quota);
        const double p = std::stod(period);
        if (q <= 0 || p <= 0) {
            return std::nullopt;
        }
        return q / p;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> read_v2(const std::string& root) {
    const auto line = read_first_line(root + "/cpu.max");
    if (!line) {
        return std::nullopt;
    }
    std::istringstream fields(*line);
    std::string quota, period;
    fields >> quota >> period;
    if (quota == "max" || period.empty()) {
        return std::nullopt;
    }
    return quota_from(quota, period);
}

std::optional<double> read_v1(const std::string& dir) {
    const auto quota = read_first_line(dir + "/cpu.cfs_quota_us");
    const auto period = read_first_line(dir + "/cpu.cfs_period_us");
    if (!quota || !period) {
        return std::nullopt;
    }
    return quota_from(*quota, *period);
}

}  // namespace

std::optional<double> read_cpu_quota(const std::string& root) {
    if (auto v2 = read_v2(root)) {
        return v2;
    }
    if (auto v1 = read_v1(root + "/cpu")) {
        return v1;
    }
    return read_v1(root + "/cpu,cpuacct");
}

int auto_threads(std::optional<double> quota, int online_cpus, int local_procs) {
    double cores = std::max(online_cpus, 1);
    if (quota) {
        cores = std::min(cores, std::max(1.0, std::ceil(*quota - 1e-9)));
    }
    const int per_proc = static_cast<int>(cores) / std::max(local_procs, 1);
    return std::max(per_proc, 1);
}

}  // namespace kftrain::trainer
