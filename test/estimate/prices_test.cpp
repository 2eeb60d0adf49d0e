#include "estimate/prices.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/files.h"
#include "support/paths.h"

using namespace kftrain::estimate;

namespace {

const char* const k_catalog = R"(source: test list prices
gpus:
  a100:
    node: p4d.24xlarge
    perNode: 32.00
    gpusPerNode: 8
    intraNodeBandwidth: 600GB/s
    network: 400Gbps
  t4:
    perGpu: 0.5
    gpusPerNode: 1
cpu:
  perCoreHour: 0.03
  perGiBHour: 0.004
)";

}  // namespace

TEST_CASE("estimate reads GPU prices per node or per GPU, and CPU prices", "[estimate]") {
    const auto c = parse_prices(k_catalog, "prices.yaml");
    REQUIRE(c.ok());
    CHECK(c->source == "test list prices");
    CHECK(c->currency == "USD");
    const GpuPrice& a100 = c->gpus.at("a100");
    CHECK(a100.per_gpu_hour == 4.0);
    CHECK(a100.gpus_per_node == 8);
    CHECK(a100.intra_node_bytes_per_s == 600e9);
    CHECK(a100.network_bytes_per_s == 50e9);
    CHECK(c->gpus.at("t4").per_gpu_hour == 0.5);
    CHECK_FALSE(c->gpus.at("t4").network_bytes_per_s);
    REQUIRE(c->cpu);
    CHECK(c->cpu->per_core_hour == 0.03);
    CHECK(c->cpu->per_gib_hour == 0.004);
}

TEST_CASE("estimate rejects bad price files naming the file, line and key", "[estimate]") {
    struct Case {
        std::string name;
        std::string yaml;
        std::string message;
    };
    const Case cases[] = {
        {"not YAML", "gpus: [a100\n", "p.yaml:2: invalid YAML: end of sequence flow not found"},
        {"not a mapping", "- a100\n", "p.yaml: must be a mapping with gpus and/or cpu (got list)"},
        {"no prices", "source: nothing\n", "p.yaml: has no prices: give gpus and/or cpu"},
        {"unknown top-level key", "gpu:\n  a100: {}\n",
         "p.yaml:1: gpu: unknown key (did you mean gpus?)"},
        {"unknown GPU key", "gpus:\n  a100:\n    perNod: 3\n    gpusPerNode: 8\n",
         "p.yaml:3: gpus.a100.perNod: unknown key (did you mean perNode?)"},
        {"price not a number", "gpus:\n  a100:\n    perNode: lots\n    gpusPerNode: 8\n",
         "p.yaml:3: gpus.a100.perNode: must be a number >= 0 (got lots)"},
        {"negative price", "cpu:\n  perCoreHour: -1\n  perGiBHour: 0\n",
         "p.yaml:2: cpu.perCoreHour: must be a number >= 0 (got -1)"},
        {"both prices", "gpus:\n  t4:\n    perGpu: 1\n    perNode: 4\n    gpusPerNode: 4\n",
         "p.yaml:3: gpus.t4: give exactly one of perGpu and perNode"},
        {"no price", "gpus:\n  t4:\n    gpusPerNode: 4\n",
         "p.yaml:3: gpus.t4: give exactly one of perGpu and perNode"},
        {"no GPUs per node", "gpus:\n  t4:\n    perGpu: 1\n",
         "p.yaml:3: gpus.t4.gpusPerNode: missing"},
        {"fractional GPUs per node", "gpus:\n  t4:\n    perGpu: 1\n    gpusPerNode: 2.5\n",
         "p.yaml:4: gpus.t4.gpusPerNode: must be a whole number between 1 and 1024 (got 2.5)"},
        {"bad bandwidth", "gpus:\n  t4:\n    perGpu: 1\n    gpusPerNode: 1\n    network: fast\n",
         "p.yaml:5: gpus.t4.network: must be a bandwidth such as 100Gbps or 600GB/s (got fast)"},
        {"GPU not a mapping", "gpus:\n  t4: 0.5\n",
         "p.yaml:2: gpus.t4: must be a mapping with perGpu or perNode and gpusPerNode (got "
         "scalar)"},
        {"CPU without memory price", "cpu:\n  perCoreHour: 0.03\n",
         "p.yaml:2: cpu.perGiBHour: missing"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const auto parsed = parse_prices(c.yaml, "p.yaml");
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.error() == c.message);
    }
}

TEST_CASE("estimate's built-in prices are examples/prices.yaml and parse", "[estimate]") {
    CHECK(default_prices_yaml() ==
          kftrain::test::read_bytes(std::string(kftrain::test::source_dir()) +
                                    "/examples/prices.yaml"));
    const auto c = parse_prices(default_prices_yaml(), "built-in");
    REQUIRE(c.ok());
    for (const char* gpu : {"a100", "h100", "v100", "t4", "l4"}) {
        INFO(gpu);
        REQUIRE(c->gpus.count(gpu) == 1);
        CHECK(c->gpus.at(gpu).per_gpu_hour > 0);
    }
    REQUIRE(c->cpu);
    CHECK(c->cpu->per_core_hour > 0);
}
