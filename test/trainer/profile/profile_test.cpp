#include "trainer/profile/profile.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer;

TEST_CASE("profile JSON has every key the estimate reads, nulls for one rank",
          "[trainer][profile]") {
    Profile p;
    p.model = "mlp";
    p.world_size = 1;
    const auto j = profile_json(p);
    for (const char* key :
         {"model", "dataset", "parameters", "gradient_bytes", "batch_size", "threads", "world_size",
          "steps", "warmup_steps", "compute_s_per_step", "compute_s_mean", "compute_s_stddev",
          "forward_s_per_step", "backward_s_per_step", "allreduce_s_per_step",
          "allreduce_bandwidth_bytes_per_s", "overlap_fraction", "samples_per_sec",
          "trainer_version"}) {
        CHECK(j.contains(key));
    }
    CHECK(j["grad_compression"] == "none");
    CHECK(j["backend"] == "none");
    CHECK(j["allreduce_bytes_per_step"] == 0);
    CHECK(j["allreduce_bandwidth_bytes_per_s"].is_null());
    CHECK(j["overlap_fraction"].is_null());
    CHECK(j["bucket_bytes"] == 0);
    CHECK(j["buckets"] == 0);
    CHECK(j["link_latency_s"].is_null());
    CHECK(j["link_bytes_per_s"].is_null());
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

TEST_CASE("step stats are the mean and the sample standard deviation", "[trainer][profile]") {
    const auto s = step_stats({0.1, 0.2, 0.3});
    CHECK(s.mean == Approx(0.2));
    CHECK(s.stddev == Approx(0.1));
    CHECK(step_stats({0.5}).stddev == 0);
    CHECK(step_stats({}).mean == 0);
}

TEST_CASE("warm-up ends once two steps agree within 10%, after the minimum, or at the maximum",
          "[trainer][profile]") {
    struct Case {
        const char* name;
        std::vector<double> seconds;
        bool done;
    };
    const Case cases[] = {
        {"nothing run yet", {}, false},
        {"steady but below the minimum of 3", {0.10, 0.10}, false},
        {"last two within 10%", {0.50, 0.10, 0.105}, true},
        {"still slowing down by half", {0.50, 0.20, 0.10}, false},
        {"the maximum of 5 reached while unsettled", {0.5, 0.1, 0.5, 0.1, 0.5}, true},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        CHECK(warmed_up(c.seconds, 3, 5) == c.done);
    }
}

TEST_CASE("the typical step is the median block's mean: a slow spell does not move it",
          "[trainer][profile]") {
    // 40 steps of 25 ms in blocks of 4 (0.1 s), 8 of them in a spell at 40 ms.
    std::vector<double> seconds(40, 0.025);
    std::fill(seconds.begin() + 12, seconds.begin() + 20, 0.040);
    CHECK(typical_step_s(seconds, 0.1) == Approx(0.025));
    CHECK(step_stats(seconds).mean == Approx(0.028));  // the mean counts the spell
    // A slow step in every block still counts: each block's mean is (3 x 25 + 45) / 4 ms.
    for (std::size_t i = 0; i < seconds.size(); ++i) {
        seconds[i] = i % 4 == 3 ? 0.045 : 0.025;
    }
    CHECK(typical_step_s(seconds, 0.1) == Approx(0.030));
    // The blocks behind it, for the estimate's range: 10 of 4 steps, each (3 x 25 + 45) / 4 ms.
    const auto blocks = block_means(seconds, 0.1);
    CHECK(blocks.size() == 10);
    CHECK(blocks.front() == Approx(0.030));
    // Too few steps for 3 blocks: the plain mean.
    CHECK(typical_step_s({0.02, 0.04}, 0.1) == Approx(0.03));
    // Blocks never hold more than a third of the steps, so a spell needs more than half of them.
    CHECK(typical_step_s({0.01, 0.01, 0.01, 0.01, 0.05, 0.05}, 10.0) == Approx(0.01));
    CHECK(typical_step_s({}, 0.1) == 0);
}
