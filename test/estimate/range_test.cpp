// An estimate's range: the spread of the blocks it measured, the low and high end of each
// size's time and cost, and the verdict when the machine was too unsteady to trust.
#include "estimate/range/range.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "estimate/format.h"
#include "estimate/plan.h"
#include "estimate/profile.h"
#include "estimate/profile_median.h"
#include "estimate/program/model.h"

using namespace kftrain::estimate;

namespace {

// Ten blocks around 100 ms: the 10th percentile 99 ms (nine tenths of the way from the first
// to the second), the 90th 101 ms.
const std::vector<double> k_blocks = {0.09, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.10, 0.11};

std::string range_line(const std::string& text, const std::string& start) {
    const auto at = text.find("\n" + start);
    return at == std::string::npos ? "" : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// A plan of 1 and 2 CPU replicas at 100 ms per step, priced, whose compute had blocks.
Plan plan_with(const std::vector<double>& blocks) {
    Plan p;
    p.profile.model = "mnist-cnn";
    p.profile.dataset = "mnist";
    p.profile.source = "profile.json";
    p.device = "cpu";
    p.input.step = {0.1, 0.06, 4'800'000, 0.0};
    p.input.batch_size = 64;
    p.input.samples = 64000;
    p.input.startup_s = 60;
    p.input.unmeasured_s = 60;  // a default: the range leaves it alone
    p.input.compute_spread = block_spread(blocks, 0.1);
    p.input.links = {2e9, 1.25e9, 30e-6, 1};
    p.input.price_per_replica_hour = 0.5;
    p.input.replicas = {1, 2};
    return p;
}

ProgressPoint step_report(double t, double fraction) {
    ProgressPoint p;
    p.t = t;
    p.fraction = fraction;
    p.steps_per_run = 1000;
    p.basis = "steps";
    return p;
}

}  // namespace

TEST_CASE("a spread is the 10th to 90th percentile of the blocks over the figure used",
          "[estimate]") {
    const Spread s = block_spread(k_blocks, 0.1);
    CHECK(s.blocks == 10);
    CHECK(s.known());
    CHECK(s.low == Approx(0.99));
    CHECK(s.high == Approx(1.01));
    CHECK_FALSE(s.unsteady());
    // Around another figure than their median, the ends still hold it: low <= 1 <= high.
    CHECK(block_spread(k_blocks, 0.2).high == 1);
    CHECK(block_spread(k_blocks, 0.05).low == 1);
    // Too few blocks, or none (an older profile): unknown, no range.
    CHECK_FALSE(block_spread({0.1, 0.2}, 0.1).known());
    CHECK_FALSE(block_spread({}, 0.1).known());
    CHECK_FALSE(time_range(100, 0, block_spread({0.1, 0.2}, 0.1)));
}

TEST_CASE("a range widens the measured part of a time by the spread and the margin", "[estimate]") {
    Spread s;
    s.blocks = 5;
    s.low = 0.9;
    s.high = 1.2;
    // 10 s unmeasured, 100 s measured: 100 x (0.9 - margin) .. 100 x (1.2 + margin).
    const auto range = time_range(110, 10, s);
    REQUIRE(range);
    CHECK(range->low == Approx(10 + 100 * (0.9 - k_range_margin)));
    CHECK(range->high == Approx(10 + 100 * (1.2 + k_range_margin)));
    const Range cost = scaled_range(*range, 110, 11);
    CHECK(cost.low == Approx(range->low / 10));
    CHECK(cost.high == Approx(range->high / 10));
    CHECK(s.width() == Approx(0.3));
    CHECK(s.unsteady());  // 30% apart, more than 25%
}

TEST_CASE("estimate table and JSON show each size's range and the rule", "[estimate]") {
    const Report r = make_report("mnist-ddp", plan_with(k_blocks), std::nullopt);
    const SizeEstimate& one = r.estimate.sizes[0];
    REQUIRE(one.total_range);
    REQUIRE(one.cost_range);
    // 1000 steps of 100 ms after 60 s of scheduling: 100 s x 0.84 .. 100 s x 1.16.
    CHECK(one.total_range->low == Approx(60 + 84));
    CHECK(one.total_range->high == Approx(60 + 116));
    CHECK(one.cost_range->high == Approx(*one.cost * (176.0 / 160)));

    const std::string table = format_table(r);
    INFO(table);
    CHECK(range_line(table, "1 ").find("2m40s (2m24s-2m56s)") != std::string::npos);
    CHECK(range_line(table, "1 ").find("$0.0222 ($0.0200-$0.0244)") != std::string::npos);
    CHECK(range_line(table, "Range (in brackets): the 10th to 90th percentile") != "");
    CHECK(table.find("Unsteady") == std::string::npos);

    const auto j = nlohmann::json::parse(format_json(r));
    CHECK(j["sizes"][0]["total_s"] == Approx(160));  // unchanged beside the new fields
    CHECK(j["sizes"][0]["total_s_low"] == Approx(144));
    CHECK(j["sizes"][0]["total_s_high"] == Approx(176));
    CHECK(j["sizes"][0]["cost_low"].is_number());
    CHECK(j["sizes"][0]["cost_high"].is_number());
    CHECK(j["range"]["known"] == true);
    CHECK(j["range"]["blocks"] == 10);
    CHECK(j["range"]["unsteady"] == false);
    CHECK(j["range"]["unsteady_above"] == Approx(0.25));
    CHECK(j["range"]["advice"].is_null());
}

TEST_CASE("blocks far apart make the estimate unsteady, with the advice in table and JSON",
          "[estimate]") {
    const Report r =
        make_report("mnist-ddp", plan_with({0.08, 0.09, 0.1, 0.1, 0.12, 0.14}), std::nullopt);
    CHECK(r.steadiness.spread.unsteady());
    const std::string table = format_table(r);
    CHECK(range_line(table, "Unsteady: those blocks ran").find("more than 25%") !=
          std::string::npos);
    CHECK(table.find("--benchmark with more steps") != std::string::npos);
    const auto j = nlohmann::json::parse(format_json(r));
    CHECK(j["range"]["unsteady"] == true);
    CHECK(j["range"]["advice"].get<std::string>().find("repeat it") != std::string::npos);
}

TEST_CASE("a profile without blocks gives no range and says so, a built-in one says nothing",
          "[estimate]") {
    const Report r = make_report("mnist-ddp", plan_with({}), std::nullopt);
    CHECK_FALSE(r.estimate.sizes[0].total_range);
    const auto j = nlohmann::json::parse(format_json(r));
    CHECK(j["sizes"][0]["total_s_low"].is_null());
    CHECK(j["sizes"][0]["cost_high"].is_null());
    CHECK(j["range"]["known"] == false);
    CHECK(format_table(r).find("No range: compute per step at world size 1 gave 0 blocks") !=
          std::string::npos);

    Plan builtin = plan_with({});
    builtin.profile.measured = false;
    const Report b = make_report("mnist-ddp", builtin, std::nullopt);
    CHECK(nlohmann::json::parse(format_json(b))["range"].is_null());
    CHECK(format_table(b).find("range") == std::string::npos);
}

TEST_CASE("repeated profiles pool their blocks, and a measured step at 2 ranks has its own",
          "[estimate]") {
    Profile a;
    a.model = "mlp";
    a.dataset = "synthetic";
    a.batch_size = 32;
    a.compute_s_per_step = 0.010;
    a.compute_s_blocks = {0.010, 0.010, 0.010};
    a.source = "a.json";
    Profile b = a;
    b.compute_s_per_step = 0.012;
    b.compute_s_blocks = {0.012, 0.012, 0.013};
    b.source = "b.json";
    const auto m = median_profile({a, b});
    REQUIRE(m.ok());
    CHECK(m->compute_s_blocks.size() == 6);

    JobFacts job;
    job.model = "mlp";
    job.dataset = "synthetic";
    job.batch_size = 32;
    job.samples = 3200;
    Profile two = a;
    two.world_size = 2;
    two.samples_per_sec = 32 * 2 / 0.02;  // a whole step of 20 ms
    two.step_s_blocks = {0.018, 0.02, 0.02, 0.03};
    two.overlap_fraction = 0.5;
    two.allreduce_bandwidth_bytes_per_s = 1e9;
    PlanFlags flags;
    flags.local = true;
    flags.workers = {1, 2, 4};
    PriceCatalog prices;
    const auto plan = make_plan(job, flags, {a, b, two}, prices);
    REQUIRE(plan.ok());
    const Report r = make_report("mlp", *plan, std::nullopt);
    CHECK(r.estimate.sizes[1].spread.high > r.estimate.sizes[0].spread.high);
    CHECK(r.estimate.sizes[2].spread.blocks == 6);  // modelled: the compute's blocks
    CHECK(r.steadiness.of == "whole steps at world size 2");
}

TEST_CASE("a program's blocks of reports give its range, older profiles have none", "[estimate]") {
    // Reports every 50 of 1000 steps (blocks of at least 10 steps): a step of 10 ms, 15 ms over
    // two stretches.
    std::vector<ProgressPoint> points;
    double t = 1;
    for (int step = 50; step <= 500; step += 50) {
        t += step == 300 || step == 400 ? 0.75 : 0.5;
        points.push_back(step_report(t, step / 1000.0));
    }
    const auto times = block_times(points);
    CHECK(times.size() == 9);
    CHECK(times.front() == Approx(10));
    auto m = measure_size(points, 1, 1, 8, false);
    REQUIRE(m.ok());
    CHECK(m->blocks.blocks == 9);
    CHECK(m->blocks.high > 1.2);

    ProgramProfile p;
    p.job = "pyddp";
    p.program = "python3 ddp.py";
    p.kind = "PyTorchJob";
    p.fingerprint = "0123";
    p.measured_at = "2026-12-06T08:00:00Z";
    p.seconds_limit = 8;
    p.sizes = {*m};
    auto read = parse_program_profile(program_profile_json(p), "p.json");
    REQUIRE(read.ok());
    CHECK(read->sizes[0].blocks.blocks == 9);
    CHECK(read->sizes[0].blocks.high == Approx(m->blocks.high));

    JobFacts job;
    job.name = "pyddp";
    PlanFlags flags;
    flags.local = true;
    flags.workers = {1, 2};
    const auto r = program_report(*read, job, flags, PriceCatalog{}, std::nullopt);
    REQUIRE(r.ok());
    REQUIRE(r->estimate.sizes[0].total_range);
    CHECK(r->estimate.sizes[0].total_range->high > r->estimate.sizes[0].total_s);
    CHECK(r->estimate.sizes[1].total_range);  // modelled: the nearest measured size's spread
    CHECK(r->steadiness.of == "the program at 1 replica");

    auto older = nlohmann::json::parse(program_profile_json(p));
    for (auto& size : older["sizes"]) {
        size.erase("blocks");
        size.erase("block_low");
        size.erase("block_high");
    }
    auto old = parse_program_profile(older.dump(), "old.json");
    REQUIRE(old.ok());
    CHECK_FALSE(old->sizes[0].blocks.known());
}
