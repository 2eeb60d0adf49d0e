#include "estimate/running_cost.h"

#include <catch2/catch.hpp>
#include <string>

using namespace kftrain::estimate;

namespace {

PriceCatalog replica_prices() {
    PriceCatalog c;
    c.gpus["a100"] = GpuPrice{"p4d.24xlarge", 4.0, 8, std::nullopt, std::nullopt};
    c.cpu = CpuPrice{"n2", 0.03, 0.004, std::nullopt};
    return c;
}

}  // namespace

TEST_CASE("estimate prices a replica-hour from its requests", "[estimate]") {
    struct Case {
        std::string name;
        ReplicaResources replica;
        std::optional<double> price;
    };
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const Case cases[] = {
        {"2 GPUs", {8, 64 * gib, 2, "a100"}, 8.0},
        {"4 cores, 8 GiB", {4, 8 * gib, 0, ""}, 4 * 0.03 + 8 * 0.004},
        {"nothing requested: one core", {0, 0, 0, ""}, 0.03},
        {"unknown GPU type", {0, 0, 1, "x100"}, std::nullopt},
        {"GPUs without a type", {0, 0, 1, ""}, std::nullopt},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const auto price = replica_hour_price(c.replica, replica_prices());
        REQUIRE(price.has_value() == c.price.has_value());
        if (price) {
            CHECK(*price == Approx(*c.price));
        }
    }
    PriceCatalog gpus_only = replica_prices();
    gpus_only.cpu.reset();
    CHECK_FALSE(replica_hour_price({4, 0, 0, ""}, gpus_only));
}

TEST_CASE("estimate's cost so far is elapsed hours x replicas x price", "[estimate]") {
    CHECK(cost_so_far(1800, 4, 2.0) == Approx(4.0));
    CHECK(cost_so_far(0, 4, 2.0) == 0.0);
    CHECK(cost_so_far(-5, 4, 2.0) == 0.0);
}
