#pragma once

#include <map>
#include <optional>
#include <string>

#include "util/result.h"

namespace kftrain::estimate {

// The price of a GPU node type, per GPU, and what its nodes hold.
struct GpuPrice {
    std::string node;         // e.g. "p4d.24xlarge"
    double per_gpu_hour = 0;  // perGpu, or perNode / gpusPerNode
    int gpus_per_node = 1;
    std::optional<double> intra_node_bytes_per_s;  // e.g. NVLink
    std::optional<double> network_bytes_per_s;     // between nodes
};

// The price of CPU-only replicas, per requested core and GiB of memory.
struct CpuPrice {
    std::string node;
    double per_core_hour = 0;
    double per_gib_hour = 0;
    std::optional<double> network_bytes_per_s;
};

// A price catalog: where its prices come from, GPU types by name, and CPU prices.
struct PriceCatalog {
    std::string file;    // where it was read from, or "built-in"
    std::string source;  // the catalog's own `source:` line
    std::string currency = "USD";
    std::map<std::string, GpuPrice> gpus;
    std::optional<CpuPrice> cpu;
};

// Parse a price catalog (examples/prices.yaml); messages name the file, line and key:
// "prices.yaml:7: gpus.a100.perNode: must be a number >= 0 (got abc)".
util::Result<PriceCatalog> parse_prices(const std::string& yaml, const std::string& file);

// Return the catalog's GPU types, joined: "a100, h100, l4".
std::string gpu_type_names(const PriceCatalog& prices);

// Return the catalog's price of a GPU type; an error naming --gpu, the catalog, the types it
// has and the value when it has no such type.
util::Result<GpuPrice> find_gpu_type(const PriceCatalog& prices, const std::string& gpu);

// Return examples/prices.yaml as built into kftrain.
const std::string& default_prices_yaml();

}  // namespace kftrain::estimate
