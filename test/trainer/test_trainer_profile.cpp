#include <catch2/catch.hpp>

#include "trainer/profile.h"

using namespace kftrain::trainer;

TEST_CASE("profile JSON has every key the estimate reads, nulls for one rank",
          "[trainer][profile]") {
    Profile p;
    p.model = "mlp";
    p.world_size = 1;
    const auto j = profile_json(p);
    for (const char* key :
         {"model", "dataset", "parameters", "gradient_bytes", "batch_size", "threads", "world_size",
          "steps", "compute_s_per_step", "forward_s_per_step", "backward_s_per_step",
          "allreduce_s_per_step", "allreduce_bandwidth_bytes_per_s", "overlap_fraction",
          "samples_per_sec", "trainer_version"}) {
        CHECK(j.contains(key));
    }
    CHECK(j["allreduce_bandwidth_bytes_per_s"].is_null());
    CHECK(j["overlap_fraction"].is_null());
}

TEST_CASE("bus bandwidth is 2(W-1)/W bytes per second", "[trainer][profile]") {
    CHECK(allreduce_bus_bandwidth(1000, 2, 1.0) == Approx(1000));
    CHECK(allreduce_bus_bandwidth(1000, 4, 0.5) == Approx(3000));
}

TEST_CASE("overlap fraction is the hidden share of all-reduce time, clamped to 0..1",
          "[trainer][profile]") {
    CHECK(overlap_fraction(1.0, 0.5, 1.5) == Approx(0.0));
    CHECK(overlap_fraction(1.0, 0.5, 1.25) == Approx(0.5));
    CHECK(overlap_fraction(1.0, 0.5, 0.9) == Approx(1.0));
    CHECK(overlap_fraction(1.0, 0.5, 2.0) == Approx(0.0));
}
