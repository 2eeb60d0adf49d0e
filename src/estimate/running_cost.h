#pragma once

#include <optional>
#include <string>

#include "estimate/prices.h"

namespace kftrain::estimate {

// What one replica requests, as far as its price goes.
struct ReplicaResources {
    double cpu_cores = 0;     // 0: not set (priced as 1 core)
    double memory_bytes = 0;  // 0: not set (not priced)
    int gpus = 0;
    std::string gpu_type;  // a GPU type of the catalog; needed when gpus > 0
};

// Return the price of one replica-hour: its GPUs' share of a node, or its cores and
// memory; nullopt when the catalog does not price it (unknown GPU type, no cpu prices).
std::optional<double> replica_hour_price(const ReplicaResources& replica,
                                         const PriceCatalog& prices);

// Return what a job has cost so far: elapsed hours x replicas x price per replica-hour.
double cost_so_far(double elapsed_s, int replicas, double price_per_replica_hour);

}  // namespace kftrain::estimate
