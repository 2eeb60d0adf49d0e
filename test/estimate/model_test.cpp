#include "estimate/model.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "estimate/choice.h"

using namespace kftrain::estimate;

namespace {

// A CPU-like job: 100 ms steps, 4.8 MB of gradients, 60000 samples, 3 epochs.
EstimateInput base_input() {
    EstimateInput in;
    in.step = {0.1, 0.06, 4'800'000, 0.0};
    in.batch_size = 64;
    in.samples = 60000;
    in.epochs = 3;
    in.startup_s = 60;
    in.links = {2e9, 1.25e9, 30e-6, 1};
    in.price_per_replica_hour = 0.04;
    in.replicas = {1, 2, 4, 8, 16};
    return in;
}

}  // namespace

TEST_CASE("estimate gives speedup 1 and full efficiency at one replica", "[estimate]") {
    const Estimate e = kftrain::estimate::estimate(base_input());
    REQUIRE(e.sizes.front().replicas == 1);
    CHECK(e.sizes.front().speedup == 1.0);
    CHECK(e.sizes.front().efficiency == 1.0);
    CHECK(e.sizes.front().allreduce_s == 0.0);
}

TEST_CASE("estimate never gets slower with more bandwidth", "[estimate]") {
    for (int replicas : {2, 3, 4, 8, 16, 64}) {
        double previous = 1e300;
        for (double gbps : {1.0, 10.0, 25.0, 100.0, 400.0, 3200.0}) {
            EstimateInput in = base_input();
            in.links.inter_node_bytes_per_s = gbps * 1e9 / 8;
            const double total = estimate_size(in, replicas).total_s;
            INFO(replicas << " replicas at " << gbps << " Gbps");
            CHECK(total <= previous);
            previous = total;
        }
    }
}

TEST_CASE("estimate scales linearly without communication or start-up", "[estimate]") {
    EstimateInput in = base_input();
    in.step.gradient_bytes = 0;
    in.links.latency_s = 0;
    in.startup_s = 0;
    in.samples = 64 * 16 * 10;  // divides evenly at every size
    const Estimate e = kftrain::estimate::estimate(in);
    for (const SizeEstimate& s : e.sizes) {
        INFO(s.replicas << " replicas");
        CHECK(s.speedup == Approx(s.replicas));
        CHECK(s.efficiency == Approx(1.0));
    }
}

TEST_CASE("estimate costs replicas x price per replica-hour x hours", "[estimate]") {
    EstimateInput in = base_input();
    in.price_per_replica_hour = 3.0;
    for (const SizeEstimate& s : kftrain::estimate::estimate(in).sizes) {
        INFO(s.replicas << " replicas");
        REQUIRE(s.cost);
        CHECK(*s.cost == Approx(s.replicas * 3.0 * s.total_s / 3600));
    }
    in.price_per_replica_hour.reset();
    const Estimate unpriced = kftrain::estimate::estimate(in);
    CHECK_FALSE(unpriced.cheapest);
    CHECK_FALSE(unpriced.sizes.front().cost);
}

TEST_CASE("estimate counts steps like DistributedSampler without drop_last", "[estimate]") {
    struct Case {
        int64_t samples;
        int batch;
        int replicas;
        int procs;
        int64_t steps;
    };
    const Case cases[] = {
        {60000, 64, 1, 1, 938}, {60000, 64, 7, 1, 134}, {60000, 64, 2, 4, 118},
        {100, 64, 16, 1, 1},    {2048, 32, 2, 1, 32},
    };
    for (const auto& c : cases) {
        EstimateInput in = base_input();
        in.samples = c.samples;
        in.batch_size = c.batch;
        in.procs_per_replica = c.procs;
        const SizeEstimate s = estimate_size(in, c.replicas);
        INFO(c.samples << " samples, batch " << c.batch << ", " << c.replicas << "x" << c.procs);
        CHECK(s.steps_per_epoch == c.steps);
        CHECK(s.world_size == c.replicas * c.procs);
        CHECK(s.global_batch == int64_t{c.batch} * c.replicas * c.procs);
    }
}

TEST_CASE("estimate uses the intra-node link until replicas spill onto a second node",
          "[estimate]") {
    EstimateInput in = base_input();
    in.links = {600e9, 12.5e9, 0, 4};
    const SizeEstimate four = estimate_size(in, 4);
    const SizeEstimate eight = estimate_size(in, 8);
    CHECK_FALSE(four.inter_node);
    CHECK(eight.inter_node);
    CHECK(four.allreduce_s == Approx(2.0 * 3 / 4 * 4.8e6 / 600e9));
    CHECK(eight.allreduce_s == Approx(2.0 * 7 / 8 * 4.8e6 / 12.5e9));
    in.links.replicas_per_node = 0;
    CHECK_FALSE(estimate_size(in, 64).inter_node);
}

TEST_CASE("estimate computes the ring all-reduce time", "[estimate]") {
    CHECK(ring_allreduce_s(1'000'000, 1, 1e9, 1e-3) == 0.0);
    CHECK(ring_allreduce_s(1'000'000, 2, 1e9, 0) == Approx(1e-3));
    CHECK(ring_allreduce_s(1'000'000, 4, 1e9, 1e-5) == Approx(1.5e-3 + 6e-5));
}

TEST_CASE("estimate hides overlapped all-reduce, but never more than backward", "[estimate]") {
    struct Case {
        double overlap;
        double backward_s;
        double hidden_s;
    };
    // All-reduce of 4.8 MB over 2 processes at 1.2e8 B/s takes 40 ms.
    const Case cases[] = {
        {0.0, 0.06, 0.0}, {0.5, 0.06, 0.02}, {1.0, 0.06, 0.04}, {1.0, 0.01, 0.01}};
    for (const auto& c : cases) {
        EstimateInput in = base_input();
        in.links = {1.2e8, 1.2e8, 0, 0};
        in.step.overlap_fraction = c.overlap;
        in.step.backward_s = c.backward_s;
        const SizeEstimate s = estimate_size(in, 2);
        INFO("overlap " << c.overlap << ", backward " << c.backward_s);
        CHECK(s.allreduce_s == Approx(0.04));
        CHECK(s.hidden_s == Approx(c.hidden_s));
        CHECK(s.step_s == Approx(0.1 + 0.04 - c.hidden_s));
    }
}

TEST_CASE("estimate marks the fastest and the cheapest size", "[estimate]") {
    const Estimate e = kftrain::estimate::estimate(base_input());
    const auto& sizes = e.sizes;
    REQUIRE(e.cheapest);
    for (const SizeEstimate& s : sizes) {
        CHECK(sizes[e.fastest].total_s <= s.total_s);
        CHECK(*sizes[*e.cheapest].cost <= *s.cost);
    }
    CHECK(sizes[e.fastest].replicas == 16);
    CHECK(sizes[*e.cheapest].replicas == 1);
}

TEST_CASE("estimate picks the cheapest size within a deadline", "[estimate]") {
    const Estimate e = kftrain::estimate::estimate(base_input());
    // Sizes 1, 2, 4, 8, 16: find the times to put deadlines between them.
    std::vector<double> totals;
    for (const SizeEstimate& s : e.sizes) {
        totals.push_back(s.total_s);
    }
    struct Case {
        std::string name;
        double deadline_s;
        std::optional<int> replicas;
    };
    const Case cases[] = {
        {"generous: one replica", totals[0] + 1, 1},
        {"between 2 and 1: two replicas", (totals[0] + totals[1]) / 2, 2},
        {"just enough for 8", totals[3], 8},
        {"tighter than the fastest: none", totals[4] - 1, std::nullopt},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const auto choice = cheapest_within_deadline(e, c.deadline_s);
        REQUIRE(choice.has_value() == c.replicas.has_value());
        if (choice) {
            CHECK(e.sizes[*choice].replicas == *c.replicas);
        }
    }
}

TEST_CASE("estimate picks the fastest size within a budget", "[estimate]") {
    const Estimate e = kftrain::estimate::estimate(base_input());
    struct Case {
        std::string name;
        double budget;
        std::optional<int> replicas;
    };
    const Case cases[] = {
        {"plenty: the fastest", 1000, 16},
        {"exactly the cost of 4", *e.sizes[2].cost, 4},
        {"less than one replica costs: none", *e.sizes[0].cost / 2, std::nullopt},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        const auto choice = fastest_within_budget(e, c.budget);
        REQUIRE(choice.has_value() == c.replicas.has_value());
        if (choice) {
            CHECK(e.sizes[*choice].replicas == *c.replicas);
        }
    }
}

TEST_CASE("estimate chooses nothing by cost without prices", "[estimate]") {
    EstimateInput in = base_input();
    in.price_per_replica_hour.reset();
    const Estimate e = kftrain::estimate::estimate(in);
    CHECK_FALSE(cheapest_within_deadline(e, 1e9));
    CHECK_FALSE(fastest_within_budget(e, 1e9));
}

TEST_CASE("estimate counts the checkpoints of a whole run", "[estimate]") {
    struct Case {
        bool checkpoints;
        int64_t every;
        int64_t steps_per_epoch;
        int epochs;
        int64_t expected;
    };
    const Case cases[] = {
        {false, 0, 40, 3, 0},    // no trainer.checkpointDir
        {true, 0, 40, 3, 3},     // one at every epoch's end
        {true, 10, 40, 3, 12},   // every 10 steps; the epoch ends are among them
        {true, 30, 40, 3, 6},    // 30, 40, 60, 80, 90, 120
        {true, 1000, 40, 3, 3},  // never mid-epoch
        {true, 7, 40, 0, 0},     // no epochs
    };
    for (const auto& c : cases) {
        INFO(c.every << " steps, " << c.steps_per_epoch << " per epoch, " << c.epochs << " epochs");
        CHECK(checkpoint_count(c.checkpoints, c.every, c.steps_per_epoch, c.epochs) == c.expected);
    }
}

TEST_CASE("estimate adds start-up, rendezvous, warm-up, evaluation and checkpoints to a run",
          "[estimate]") {
    EstimateInput in = base_input();
    in.samples = 64 * 3 * 100;  // 100 steps per epoch at 3 replicas
    in.startup_s = 2;
    in.links.rendezvous_s = 0.5;
    in.run.warmup_extra_s = 0.25;
    in.run.eval_samples = 1000;
    in.run.eval_s_per_sample = 0.001;
    in.run.checkpoints = true;
    in.run.checkpoint_s = 0.1;
    const SizeEstimate one = estimate_size(in, 1);
    CHECK(one.rendezvous_s == 0);      // nobody to connect to
    CHECK(one.eval_s == Approx(1.0));  // the whole test set on one process
    CHECK(one.checkpoints == 3);
    CHECK(one.total_s == Approx(2 + 0.25 + 3 * (one.epoch_s + 1.0) + 0.3));
    const SizeEstimate three = estimate_size(in, 3);
    CHECK(three.steps_per_epoch == 100);
    CHECK(three.rendezvous_s == 0.5);
    CHECK(three.eval_s == Approx(0.334));  // the slowest process: ceil(1000 / 3) samples
    CHECK(three.total_s == Approx(2 + 0.5 + 0.25 + 3 * (three.epoch_s + 0.334) + 0.3));
}

TEST_CASE("estimate takes a step measured at a world size for that size only", "[estimate]") {
    EstimateInput in = base_input();
    in.measured_steps = {{2, 0.12, 0.03, 0.14, {}}};
    const SizeEstimate two = estimate_size(in, 2);
    CHECK(two.step_measured);
    CHECK(two.step_s == 0.14);
    CHECK(two.compute_s == 0.12);
    CHECK(two.hidden_s == Approx(0.01));  // 0.12 + 0.03 - 0.14
    const SizeEstimate four = estimate_size(in, 4);
    CHECK_FALSE(four.step_measured);
    CHECK(four.compute_s == 0.1);  // the model, from the base step
    CHECK(four.step_s == Approx(four.compute_s + four.allreduce_s - four.hidden_s));
}
