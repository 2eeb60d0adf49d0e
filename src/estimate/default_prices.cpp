// examples/prices.yaml, built in so that estimate prices jobs from any directory.
// test_estimate_prices.cpp checks that the two stay the same.
#include "estimate/prices.h"

namespace kftrain::estimate {

namespace {

constexpr const char* k_prices_yaml =
    R"yaml(# Price catalog for `kftrain estimate`: public on-demand list prices in USD per hour.
#
# Sources (list prices as published in 2024; check the pages before relying on them,
# prices change, and AWS cut P4 and P5 prices in June 2025):
#   GPUs: AWS EC2 On-Demand Pricing, Linux, us-east-1, https://aws.amazon.com/ec2/pricing/on-demand/
#     a100 p4d.24xlarge $32.7726 (8 x A100 40GB, NVSwitch, 400 Gbps EFA)
#     h100 p5.48xlarge  $98.32   (8 x H100 80GB, NVSwitch, 3200 Gbps EFA)
#     v100 p3.16xlarge  $24.48   (8 x V100 16GB, NVLink, 25 Gbps)
#     t4   g4dn.12xlarge $3.912  (4 x T4, PCIe, 50 Gbps)
#     l4   g6.12xlarge  $4.6016  (4 x L4, PCIe, 40 Gbps)
#   CPU: Google Compute Engine N2 custom machine types, us-central1,
#     https://cloud.google.com/compute/vm-instance-pricing: $0.031611 per vCPU hour,
#     $0.004237 per GiB hour.
#
# A GPU type gives perNode (the node's price) or perGpu, and gpusPerNode; optional
# intraNodeBandwidth (between the GPUs of one node) and network (between nodes), as
# bandwidths such as 600GB/s or 100Gbps. A replica with GPUs costs its GPUs' share of a
# node; a CPU-only replica costs its requested cores and memory.
# Use another catalog with `kftrain estimate --prices FILE` or KFTRAIN_PRICES=FILE.
source: AWS EC2 on-demand us-east-1 (GPUs) and GCE N2 us-central1 (CPU), list prices of 2024
currency: USD
gpus:
  a100:
    node: p4d.24xlarge
    perNode: 32.7726
    gpusPerNode: 8
    intraNodeBandwidth: 600GB/s
    network: 400Gbps
  h100:
    node: p5.48xlarge
    perNode: 98.32
    gpusPerNode: 8
    intraNodeBandwidth: 900GB/s
    network: 3200Gbps
  v100:
    node: p3.16xlarge
    perNode: 24.48
    gpusPerNode: 8
    intraNodeBandwidth: 300GB/s
    network: 25Gbps
  t4:
    node: g4dn.12xlarge
    perNode: 3.912
    gpusPerNode: 4
    intraNodeBandwidth: 12GB/s
    network: 50Gbps
  l4:
    node: g6.12xlarge
    perNode: 4.6016
    gpusPerNode: 4
    intraNodeBandwidth: 24GB/s
    network: 40Gbps
cpu:
  node: n2-custom
  perCoreHour: 0.031611
  perGiBHour: 0.004237
  network: 10Gbps
)yaml";

}  // namespace

const std::string& default_prices_yaml() {
    static const std::string k_yaml = k_prices_yaml;
    return k_yaml;
}

}  // namespace kftrain::estimate
