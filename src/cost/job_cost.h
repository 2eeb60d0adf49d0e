#pragma once

#include <ctime>
#include <map>
#include <string>

#include "estimate/prices.h"
#include "job/status.h"
#include "util/result.h"

namespace kftrain::cost {

// How status prices a job: a catalog and, for replicas with GPUs, their type (--gpu); with
// no type given it is read from the pods' node selector.
struct Pricing {
    estimate::PriceCatalog catalog;
    std::string gpu;
};

// What a job has cost: elapsed time x replicas x price per replica-hour.
struct JobCost {
    double amount = 0;
    std::string currency;
    double per_hour = 0;  // all replicas together
    int replicas = 0;
    double elapsed_s = 0;
    bool final = false;  // the job has finished: the amount no longer grows
    std::string gpu;     // the GPU type priced; empty for CPU-only replicas
    std::string basis;   // "2 replicas x $0.08/h each (2 cores, 4 GiB)"
    std::string prices;  // where the prices come from: a file or "built-in prices"
};

// Return the catalog's GPU type that a node selector names: one of the words of a label's
// value (nvidia-tesla-a100, NVIDIA-A100-SXM4-40GB), or the type whose node is the
// instance type; "" when none does.
std::string gpu_type_from_selector(const std::map<std::string, std::string>& node_selector,
                                   const estimate::PriceCatalog& catalog);

// Return what the job has cost until it finished, or until now while it runs; an error
// saying why when it cannot be priced (resources unknown, GPU type unknown, no price).
util::Result<JobCost> job_cost(const job::JobStatus& status, const Pricing& pricing,
                               std::time_t now);

}  // namespace kftrain::cost
