#include "manifest/nproc.h"

#include <cmath>
#include <limits>

#include "manifest/k8s/quantity.h"

namespace kftrain::manifest {

std::optional<int> nproc_count(const std::string& nproc) {
    if (nproc.empty() || nproc[0] == '0' ||
        nproc.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    if (nproc.size() > 9) {
        return std::numeric_limits<int>::max();
    }
    return std::stoi(nproc);
}

bool nproc_is_word(const std::string& nproc) {
    return nproc.empty() || nproc == "auto" || nproc == "cpu" || nproc == "gpu";
}

int trainjob_procs_per_node(const JobSpec& spec) {
    if (auto number = nproc_count(spec.nproc_per_node)) {
        return *number;
    }
    if (spec.resources.gpus > 0) {
        return spec.resources.gpus;
    }
    const std::string& cpu =
        spec.resources.cpu_limit.empty() ? spec.resources.cpu : spec.resources.cpu_limit;
    const double cores = parse_quantity(cpu).value_or(0.0);
    return cores >= 1.0 && cores < 1e6 ? static_cast<int>(std::floor(cores)) : 1;
}

int trainer_procs_per_pod(const JobSpec& spec) {
    if (spec.kind == JobKind::TrainJob) {
        return trainjob_procs_per_node(spec);
    }
    if (auto number = nproc_count(spec.nproc_per_node)) {
        return *number;
    }
    return spec.nproc_per_node == "gpu" && spec.resources.gpus > 0 ? spec.resources.gpus : 1;
}

}  // namespace kftrain::manifest
