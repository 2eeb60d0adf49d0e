#include "estimate/running_cost.h"

#include <algorithm>

namespace kftrain::estimate {

std::optional<double> replica_hour_price(const ReplicaResources& replica,
                                         const PriceCatalog& prices) {
    if (replica.gpus > 0 || !replica.gpu_type.empty()) {
        const auto it = prices.gpus.find(replica.gpu_type);
        if (it == prices.gpus.end()) {
            return std::nullopt;
        }
        return it->second.per_gpu_hour * std::max(replica.gpus, 1);
    }
    if (!prices.cpu) {
        return std::nullopt;
    }
    const double cores = replica.cpu_cores > 0 ? replica.cpu_cores : 1.0;
    const double gib = replica.memory_bytes / (1024.0 * 1024.0 * 1024.0);
    return cores * prices.cpu->per_core_hour + gib * prices.cpu->per_gib_hour;
}

double cost_so_far(double elapsed_s, int replicas, double price_per_replica_hour) {
    return std::max(elapsed_s, 0.0) / 3600.0 * replicas * price_per_replica_hour;
}

}  // namespace kftrain::estimate
