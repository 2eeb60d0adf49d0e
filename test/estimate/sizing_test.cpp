// What a measured program's replicas used, and the resources recommended from it.
#include "estimate/program/sizing.h"

#include <catch2/catch.hpp>

#include "estimate/program/profile.h"

using namespace kftrain::estimate;

namespace {

constexpr double k_mib = 1024.0 * 1024;

SizeMeasurement size_using(int replicas, std::vector<ReplicaUse> use) {
    SizeMeasurement size;
    size.replicas = replicas;
    size.world_size = replicas;
    size.use = std::move(use);
    return size;
}

ReplicaUse replica(const std::string& name, double memory_mib, std::optional<double> cores) {
    ReplicaUse use;
    use.replica = name;
    use.peak_memory_bytes = memory_mib * k_mib;
    use.cpu_cores = cores;
    return use;
}

}  // namespace

TEST_CASE("memory that loads and holds is no leak, memory still growing at the end is",
          "[estimate][sizing]") {
    CHECK_FALSE(memory_rising(
        {10 * k_mib, 300 * k_mib, 300 * k_mib, 301 * k_mib, 300 * k_mib, 300 * k_mib}));
    CHECK(memory_rising(
        {100 * k_mib, 120 * k_mib, 140 * k_mib, 160 * k_mib, 180 * k_mib, 200 * k_mib}));
    // Growth under 16 MiB is noise, however large a share.
    CHECK_FALSE(memory_rising({1 * k_mib, 2 * k_mib, 3 * k_mib, 4 * k_mib, 5 * k_mib, 9 * k_mib}));
    // Too few readings tell nothing.
    CHECK_FALSE(memory_rising({100 * k_mib, 400 * k_mib}));
}

TEST_CASE("the tracker keeps each replica's peak and mean cores, whatever it could not read",
          "[estimate][sizing]") {
    UseTracker tracker;
    tracker.add("worker-0", 100 * k_mib, 0.5);
    tracker.add("master-0", std::nullopt, std::nullopt);  // not started yet
    tracker.add("master-0", 50 * k_mib, 1.0);
    tracker.add("worker-0", 300 * k_mib, 1.5);
    tracker.add("worker-0", 200 * k_mib, std::nullopt);
    tracker.add("worker-0", -1, std::numeric_limits<double>::quiet_NaN());  // never a figure
    const auto use = tracker.result();
    REQUIRE(use.size() == 2);
    CHECK(use[0].replica == "master-0");
    CHECK(use[0].peak_memory_bytes == 50 * k_mib);
    CHECK(use[0].readings == 1);
    CHECK(use[1].replica == "worker-0");
    CHECK(use[1].peak_memory_bytes == 300 * k_mib);
    CHECK(use[1].cpu_cores == Approx(1.0));
    CHECK(use[1].readings == 3);
}

TEST_CASE("the recommendation: the peak plus 20% to the MiB, the most cores to 100m",
          "[estimate][sizing]") {
    const auto sizing = recommend_sizing(
        {size_using(1, {replica("master-0", 300, 0.93)}),
         size_using(2, {replica("master-0", 310, 0.71), replica("worker-0", 312, 0.9)})});
    REQUIRE(sizing);
    CHECK(sizing->peak_memory_bytes == 312 * k_mib);
    CHECK(sizing->peak_replicas == 2);
    CHECK(sizing->peak_replica == "worker-0");
    CHECK(sizing->memory_bytes == 375 * k_mib);  // 312 x 1.2 = 374.4, up to 375
    CHECK(sizing->cpu_cores == Approx(1.0));
    CHECK(sizing->warnings.empty());
    CHECK(sizing_text(*sizing) ==
          "memory 375Mi (peak 312Mi of worker-0 at 2 replicas, +20%), "
          "cpu 1");
    CHECK_FALSE(recommend_sizing({size_using(1, {})}));
}

TEST_CASE("memory that grows with the replica count or through a run is called out",
          "[estimate][sizing]") {
    ReplicaUse rising = replica("master-0", 400, 1);
    rising.memory_rising = true;
    const auto sizing =
        recommend_sizing({size_using(1, {replica("master-0", 200, 1)}), size_using(4, {rising})});
    REQUIRE(sizing);
    REQUIRE(sizing->warnings.size() == 2);
    CHECK(sizing->warnings[0] ==
          "master-0 at 4 replicas: memory still grew when the measurement ended (a leak?): a "
          "longer run needs more than the 400Mi peak measured");
    CHECK(sizing->warnings[1] ==
          "a replica's peak grows with the replica count: 200Mi at 1 replica, 400Mi at 4 "
          "replicas: a larger job needs more than measured");
}

TEST_CASE("a limit under the peak will be OOMKilled, a request far over it wastes quota",
          "[estimate][sizing]") {
    const auto sizing = recommend_sizing({size_using(2, {replica("master-0", 312, 0.5)})});
    REQUIRE(sizing);
    auto oom = check_job_resources(*sizing, 128 * k_mib, 128 * k_mib, 1);
    REQUIRE(oom.size() == 1);
    CHECK(oom[0].oom);
    CHECK(oom[0].message ==
          "will be OOMKilled: peak 312Mi measured at 2 replicas > limit 128Mi; "
          "ask for 375Mi (resources.memory)");
    CHECK(check_job_resources(*sizing, 375 * k_mib, 375 * k_mib, 1).empty());
    CHECK(check_job_resources(*sizing, std::nullopt, std::nullopt, std::nullopt).empty());
    auto waste = check_job_resources(*sizing, 8192 * k_mib, 8192 * k_mib, 8);
    REQUIRE(waste.size() == 2);
    CHECK_FALSE(waste[0].oom);
    CHECK(waste[0].message ==
          "requests 8Gi of memory, where the peak measured is 312Mi: quota "
          "others cannot use; 375Mi is enough");
    CHECK(waste[1].message ==
          "requests 8 CPU, where a replica used at most 500m: quota others cannot use");
}

TEST_CASE("a profile keeps each replica's use and reads one without it", "[estimate][sizing]") {
    ProgramProfile profile;
    profile.job = "train";
    profile.program = "python3 train.py";
    profile.kind = "PyTorchJob";
    profile.fingerprint = "abc";
    profile.measured_at = "2026-12-06T17:00:00Z";
    profile.seconds_limit = 60;
    SizeMeasurement size = size_using(2, {replica("master-0", 312, 0.5)});
    size.basis = "steps";
    size.training_s = 10;
    size.reports = 5;
    size.use[0].memory_rising = true;
    size.use[0].readings = 9;
    size.use.push_back(replica("worker-0", 1, std::nullopt));
    size.use[1].peak_memory_bytes.reset();
    profile.sizes.push_back(size);
    auto read = parse_program_profile(program_profile_json(profile), "p.json");
    INFO((read ? "" : read.error()));
    REQUIRE(read);
    REQUIRE(read->sizes.size() == 1);
    const auto& use = read->sizes[0].use;
    REQUIRE(use.size() == 2);
    CHECK(use[0].replica == "master-0");
    CHECK(use[0].peak_memory_bytes == 312 * k_mib);
    CHECK(use[0].cpu_cores == Approx(0.5));
    CHECK(use[0].memory_rising);
    CHECK(use[0].readings == 9);
    CHECK_FALSE(use[1].peak_memory_bytes);
    CHECK_FALSE(use[1].cpu_cores);
}
