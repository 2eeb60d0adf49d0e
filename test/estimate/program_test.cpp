// The estimate of a user's own program from what `estimate --measure` saw it do: the rate of
// progress and start-up at each size, the fit of its step over sizes, and the profile file.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "cost/measurement.h"
#include "estimate/format.h"
#include "estimate/program/model.h"

using namespace kftrain::estimate;

namespace {

PriceCatalog cpu_prices() {
    PriceCatalog c;
    c.file = "prices.yaml";
    c.cpu = CpuPrice{"n2", 0.03, 0.004, std::nullopt};
    return c;
}

JobFacts program_job() {
    JobFacts j;
    j.name = "pyddp";
    j.replicas = 2;
    j.cpu_cores = 1;
    return j;
}

ProgressPoint at(double t, double fraction) {
    ProgressPoint p;
    p.t = t;
    p.fraction = fraction;
    p.basis = "steps";
    return p;
}

// A size measured from a program whose steps follow the model exactly: a compute of
// compute_s per step at world size 1 and communication_s at world size 2, each process
// taking 1/P of the run's 1000 steps (at world size 1).
SizeMeasurement exact_size(int world, double compute_s, double communication_s) {
    SizeMeasurement s;
    s.replicas = world;
    s.world_size = world;
    s.seconds = 60;
    s.reports = 10;
    s.basis = "steps";
    s.steps_per_run = 1000 / world;
    s.steps_per_epoch = 500 / world;
    const double share = world > 1 ? 2.0 * (world - 1) / world : 0.0;
    s.training_s = *s.steps_per_run * (compute_s + communication_s * share);
    s.startup_s = 3;
    return s;
}

ProgramProfile profile_of(std::vector<SizeMeasurement> sizes) {
    ProgramProfile p;
    p.job = "pyddp";
    p.program = "python3 ddp.py";
    p.kind = "PyTorchJob";
    p.fingerprint = "0123456789abcdef";
    p.measured_at = "2026-11-27T08:00:00Z";
    p.seconds_limit = 60;
    p.host_cpus = 2;
    p.sizes = std::move(sizes);
    p.source = "ddp-profile.json";
    return p;
}

const SizeEstimate& size_of(const Report& r, int replicas) {
    for (const auto& s : r.estimate.sizes) {
        if (s.replicas == replicas) {
            return s;
        }
    }
    FAIL("no size " << replicas);
    return r.estimate.sizes.front();
}

}  // namespace

TEST_CASE("a program's rate of progress and start-up come from its reports", "[estimate]") {
    // Started at 0; its first step came at 1 s; a tenth of the run every second from then.
    auto m = measure_size({at(2, 0.1), at(3, 0.2), at(4, 0.3)}, 2, 2, 4.5, false);
    REQUIRE(m.ok());
    CHECK(m->training_s == Approx(10));
    CHECK(m->startup_s == Approx(1));
    CHECK(m->reports == 3);
    CHECK(m->spread == Approx(0).margin(1e-9));
    CHECK(m->world_size == 2);
    CHECK_FALSE(m->finished);

    SECTION("reports out of order, repeated or not moving on count once, in time order") {
        auto again = measure_size({at(3, 0.2), at(2, 0.1), at(2.5, 0.1), at(4, 0.3), at(4.2, 0.3)},
                                  2, 2, 4.5, false);
        REQUIRE(again.ok());
        CHECK(again->training_s == Approx(10));
        CHECK(again->reports == 3);
    }
    SECTION("a run that ended: all its time but its training is start-up and the end") {
        auto ended = measure_size({at(2, 0.1), at(3, 0.2), at(11, 1.0)}, 1, 1, 12.5, true);
        REQUIRE(ended.ok());
        CHECK(ended->training_s == Approx(10));
        CHECK(ended->startup_s == Approx(2.5));
        CHECK(ended->finished);
    }
    SECTION("an uneven rate shows as spread") {
        auto uneven = measure_size({at(1, 0.1), at(2, 0.2), at(4, 0.3)}, 1, 1, 5, false);
        REQUIRE(uneven.ok());
        CHECK(uneven->spread > 0.3);
    }
}

TEST_CASE("a program that reports nothing, or once, cannot be measured and says how to report",
          "[estimate]") {
    auto none = measure_size({}, 1, 1, 60, false);
    REQUIRE_FALSE(none.ok());
    CHECK_THAT(none.error(),
               Catch::Contains("reported no progress") && Catch::Contains("progress lines") &&
                   Catch::Contains("trainerStatus") && Catch::Contains("docs/progress.md"));
    auto once = measure_size({at(5, 0.5)}, 1, 1, 60, false);
    REQUIRE_FALSE(once.ok());
    CHECK_THAT(once.error(), Catch::Contains("only once") && Catch::Contains("--measure-seconds"));
}

TEST_CASE("progress reports become shares of the run: steps, else percent, else epochs",
          "[estimate]") {
    using kftrain::cost::progress_point;
    kftrain::job::Progress p;
    p.event = "progress";
    p.epochs = 4;
    p.steps_per_epoch = 50;
    p.global_step = 30;
    auto steps = progress_point(p, 1.5);
    REQUIRE(steps);
    CHECK(steps->fraction == Approx(0.15));
    CHECK(steps->steps_per_run == 200);
    CHECK(steps->basis == "steps");
    CHECK(steps->t == 1.5);

    p.global_step.reset();
    p.epoch = 2;
    p.step = 10;
    CHECK(progress_point(p, 0)->fraction == Approx(60.0 / 200));

    kftrain::job::Progress posted;
    posted.percent = 45;
    CHECK(progress_point(posted, 0)->fraction == Approx(0.45));
    CHECK(progress_point(posted, 0)->basis == "percent");

    kftrain::job::Progress epoch;
    epoch.event = "epoch";
    epoch.epoch = 1;
    epoch.epochs = 4;
    CHECK(progress_point(epoch, 0)->fraction == Approx(0.25));

    kftrain::job::Progress finish;
    finish.event = "finish";
    CHECK(progress_point(finish, 0)->fraction == 1);

    kftrain::job::Progress bare;
    bare.event = "progress";
    bare.loss = 0.3;
    CHECK_FALSE(progress_point(bare, 0));

    // Counts no run has, from a program's line, are not arithmetic that overflows.
    kftrain::job::Progress huge;
    huge.event = "progress";
    huge.steps_per_epoch = 1LL << 62;
    huge.epochs = 8;
    huge.global_step = 1;
    auto overflowing = progress_point(huge, 0);
    CHECK_FALSE(overflowing);  // steps_per_epoch x epochs past a long long: no steps basis
    huge.steps_per_epoch = 100;
    huge.global_step.reset();
    huge.epoch = std::numeric_limits<int>::min();
    huge.step = std::numeric_limits<long long>::max();
    auto negative = progress_point(huge, 0);
    REQUIRE(negative);
    CHECK(std::isfinite(negative->fraction));
}

TEST_CASE("a measurement whose reports give no finite rate is refused, not saved", "[estimate]") {
    const double tiny = std::numeric_limits<double>::denorm_min();
    auto instant = kftrain::estimate::measure_size({at(0, 0.1), at(tiny, 0.9)}, 1, 1, 60, false);
    REQUIRE_FALSE(instant.ok());
    CHECK_THAT(instant.error(), Catch::Contains("no usable rate"));
}

TEST_CASE("two measured sizes give the step's compute and communication, others are predicted",
          "[estimate]") {
    const ProgramProfile p = profile_of({exact_size(1, 0.010, 0.004), exact_size(2, 0.010, 0.004)});
    const ProgramFit fit = fit_program(p);
    CHECK(fit.compute_s == Approx(0.010));
    CHECK(fit.communication_s == Approx(0.004));
    CHECK(fit.communication_measured);
    CHECK(fit.exponent == Approx(1));
    CHECK(fit.exponent_measured);

    PlanFlags flags;
    flags.local = true;
    flags.workers = {1, 2, 4};
    auto r = program_report(p, program_job(), flags, cpu_prices(), std::nullopt);
    REQUIRE(r.ok());
    // At 4: 250 steps of 10 ms + 4 ms x 2(3)/4, plus the nearest size's start-up.
    const SizeEstimate& four = size_of(*r, 4);
    CHECK(four.total_s == Approx(3 + 250 * (0.010 + 0.006)));
    CHECK(four.extrapolated);
    CHECK_FALSE(four.step_measured);
    CHECK(size_of(*r, 2).step_measured);
    CHECK(size_of(*r, 2).total_s == Approx(3 + 500 * 0.014));
    CHECK(size_of(*r, 1).speedup == Approx(1));
    REQUIRE(size_of(*r, 4).cost);

    const std::string table = format_table(*r);
    CHECK_THAT(table, Catch::Contains("its own program, measured running at 1 and 2 replicas"));
    CHECK_THAT(table, Catch::Contains("extrapolated"));
    CHECK_THAT(table, Catch::Contains("communication per step") &&
                          Catch::Contains("measured: the part of a step that does not shrink"));
    const auto json = report_to_json(*r);
    CHECK(json["profile"]["measured_from"] == "program");
    CHECK(json["sizes"][2]["step_basis"] == "extrapolated");
    CHECK(json["sizes"][1]["step_basis"] == "measured");
    CHECK(json["sizes"][0]["global_batch"].is_null());
}

TEST_CASE("a size between two measured ones is modelled, a fixed global batch is recognised",
          "[estimate]") {
    // The global batch fixed: every size runs the same 1000 steps, each process's share of a
    // step (8 ms of compute at 1) shrinking with P, 2 ms of communication at P = 2.
    auto fixed = [](int world) {
        SizeMeasurement s = exact_size(world, 0, 0);
        s.steps_per_run = 1000;
        s.steps_per_epoch = 500;
        s.training_s = 1000 * (0.008 / world + 0.002 * 2.0 * (world - 1) / world);
        return s;
    };
    const ProgramProfile p = profile_of({fixed(1), fixed(4)});
    const ProgramFit fit = fit_program(p);
    CHECK(fit.exponent == Approx(0).margin(1e-9));
    CHECK(fit.compute_s == Approx(0.008));
    CHECK(fit.communication_s == Approx(0.002));
    PlanFlags flags;
    flags.local = true;
    flags.workers = {2};
    auto r = program_report(p, program_job(), flags, cpu_prices(), std::nullopt);
    REQUIRE(r.ok());
    const SizeEstimate& two = size_of(*r, 2);
    CHECK_FALSE(two.extrapolated);
    CHECK_FALSE(two.step_measured);
    CHECK(two.total_s == Approx(3 + 1000 * (0.004 + 0.002)));
}

TEST_CASE("one measured size assumes no communication and says so", "[estimate]") {
    const ProgramProfile p = profile_of({exact_size(1, 0.010, 0)});
    PlanFlags flags;
    flags.workers = {1, 2};
    auto r = program_report(p, program_job(), flags, cpu_prices(), std::nullopt);
    REQUIRE(r.ok());
    const std::string table = format_table(*r);
    CHECK_THAT(table, Catch::Contains("assumed none: measured at one size only"));
    CHECK_THAT(table, Catch::Contains("--measure-replicas 1,2"));
    // On a cluster: its scheduling default and where it ran are said.
    CHECK_THAT(table, Catch::Contains("default: scheduling and the image pull"));
    CHECK_THAT(table, Catch::Contains("assumed: as fast as this machine"));
    CHECK(size_of(*r, 1).total_s == Approx(k_default_startup_s + 3 + 10));
    CHECK_THAT(table, !Catch::Contains("GPU(s) per replica"));

    // A GPU job measured here: the estimate says it is of this machine, not of its GPUs.
    JobFacts gpu_job = program_job();
    gpu_job.gpus = 1;
    PlanFlags gpu_flags = flags;
    gpu_flags.gpu = "t4";
    PriceCatalog prices = cpu_prices();
    prices.gpus["t4"] = GpuPrice{"g4dn.xlarge", 0.5, 1, std::nullopt, std::nullopt};
    auto gpu = program_report(p, gpu_job, gpu_flags, prices, std::nullopt);
    REQUIRE(gpu.ok());
    CHECK_THAT(format_table(*gpu),
               Catch::Contains("not on the 1 GPU(s) per replica the job asks for"));
}

TEST_CASE("a goal chooses among a program's sizes as among the trainer's", "[estimate]") {
    const ProgramProfile p = profile_of({exact_size(1, 0.010, 0.004), exact_size(2, 0.010, 0.004)});
    PlanFlags flags;
    flags.local = true;
    flags.workers = {1, 2, 4};
    auto r = program_report(p, program_job(), flags, cpu_prices(), Goal{Goal::Kind::deadline, 8});
    REQUIRE(r.ok());
    REQUIRE(r->choice);
    CHECK(r->estimate.sizes[*r->choice].replicas == 4);
}

TEST_CASE("a program's profile is written and read back, a broken one names the field",
          "[estimate]") {
    const ProgramProfile p = profile_of({exact_size(1, 0.010, 0.004), exact_size(2, 0.010, 0.004)});
    const std::string text = program_profile_json(p);
    CHECK(is_program_profile(text));
    CHECK_FALSE(is_program_profile(R"({"model": "mnist-cnn"})"));
    CHECK_FALSE(is_program_profile("not json"));
    auto back = parse_program_profile(text, "p.json");
    REQUIRE(back.ok());
    CHECK(back->program == "python3 ddp.py");
    REQUIRE(back->sizes.size() == 2);
    CHECK(back->sizes[1].training_s == Approx(p.sizes[1].training_s));
    CHECK(back->sizes[1].steps_per_run == 500);
    CHECK(back->source == "p.json");

    std::string broken = text;
    broken.replace(broken.find("\"training_s\""), 12, "\"training_z\"");
    auto bad = parse_program_profile(broken, "p.json");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error(), Catch::Contains("p.json: field 'sizes[0].training_s' is missing"));
    auto empty = parse_program_profile(R"({"measured_from": "program", "job": "x"})", "e.json");
    REQUIRE_FALSE(empty.ok());
    CHECK_THAT(empty.error(), Catch::Contains("e.json: field 'program' is missing"));
}

TEST_CASE("too few or too coarse progress reports are named, not trusted", "[estimate]") {
    // Kubeflow's SDK: a post every 5 s at most, whole percentages. Three in 15 s, 2% apart.
    auto sdk = [](double t, int percent) {
        ProgressPoint p = at(t, percent / 100.0);
        p.basis = "percent";
        return p;
    };
    const std::vector<ProgressPoint> three = {sdk(5, 1), sdk(10, 2), sdk(15, 3)};
    CHECK(report_shortage(three) == "3 reports over 2 of their steps of 1%; 5 over 10 are needed");
    auto measured = measure_size(three, 1, 1, 15, false);
    REQUIRE(measured);
    CHECK(measured->too_few == report_shortage(three));
    // Enough: a dozen, 11% apart in all.
    std::vector<ProgressPoint> dozen;
    for (int i = 0; i < 12; ++i) {
        dozen.push_back(sdk(5 + 5 * i, 1 + i));
    }
    CHECK(report_shortage(dozen).empty());
    // Steps are fine-grained: five reports 10 steps apart suffice.
    std::vector<ProgressPoint> steps;
    for (int i = 1; i <= 5; ++i) {
        ProgressPoint p = at(i, i * 10 / 1000.0);
        p.steps_per_run = 1000;
        steps.push_back(p);
    }
    CHECK(report_shortage(steps).empty());
    CHECK(report_shortage({at(1, 0.1)}) == "1 report that advanced; 5 are needed");
}

TEST_CASE("a profile measured on the cluster says where, uses its wait, and reads back",
          "[estimate][measure][cluster]") {
    ProgramProfile p = profile_of({exact_size(1, 0.010, 0.004), exact_size(2, 0.010, 0.004)});
    p.host_cpus = 0;
    p.where.cluster = true;
    p.where.context = "kind-ml";
    p.where.namespace_ = "team-a";
    p.where.nodes = {"gpu-3"};
    p.where.hardware = "NVIDIA-H100-80GB-HBM3 x 8";
    p.where.image = "registry.example/train:1";
    p.sizes[0].waited_s = 12;
    p.sizes[1].waited_s = 20;
    CHECK(measured_where_text(p) ==
          "on the cluster (context kind-ml, namespace team-a, node gpu-3: "
          "NVIDIA-H100-80GB-HBM3 x 8, image registry.example/train:1)");

    auto back = parse_program_profile(program_profile_json(p), "c.json");
    REQUIRE(back.ok());
    CHECK(back->where.cluster);
    CHECK(back->where.nodes == std::vector<std::string>{"gpu-3"});
    CHECK(back->where.image == "registry.example/train:1");
    REQUIRE(back->sizes[1].waited_s);
    CHECK(*back->sizes[1].waited_s == Approx(20));

    PlanFlags flags;  // a cluster's estimate: scheduling is the wait measured, not a default
    flags.workers = {1, 2};
    auto r = program_report(*back, program_job(), flags, cpu_prices(), std::nullopt);
    REQUIRE(r.ok());
    CHECK(size_of(*r, 2).total_s == Approx(16 + 3 + 500 * 0.014));
    const std::string table = format_table(*r);
    INFO(table);
    CHECK_THAT(table, Catch::Contains("measured running at 1 and 2 replicas on the cluster"));
    CHECK_THAT(table, Catch::Contains("measured on cluster"));
    CHECK_THAT(table, Catch::Contains("measured on the cluster: from submission"));
    CHECK_THAT(table, !Catch::Contains("this machine's loopback"));
    CHECK(report_to_json(*r)["program"]["measured_on"] == "cluster");

    // A profile of an older kftrain has no "where": measured on this machine.
    std::string old_text = program_profile_json(profile_of({exact_size(1, 0.010, 0.004)}));
    const size_t at = old_text.find("  \"where\"");
    REQUIRE(at != std::string::npos);
    old_text.erase(at, old_text.find('\n', old_text.find('}', at)) - at + 1);
    auto old = parse_program_profile(old_text, "old.json");
    REQUIRE(old.ok());
    CHECK_FALSE(old->where.cluster);
    CHECK(measured_where_text(*old) == "on this machine (2 CPUs)");
}
