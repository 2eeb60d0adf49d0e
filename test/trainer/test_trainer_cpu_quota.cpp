#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "trainer/startup/cpu_quota.h"

using namespace kftrain::trainer;

TEST_CASE("read_cpu_quota reads cgroup v2 cpu.max", "[trainer][cpu]") {
    TempDir root;
    write_text(root.file("cpu.max"), "250000 100000\n");
    REQUIRE(read_cpu_quota(root.path().string()));
    CHECK(*read_cpu_quota(root.path().string()) == Approx(2.5));
    write_text(root.file("cpu.max"), "max 100000\n");
    CHECK_FALSE(read_cpu_quota(root.path().string()));
}

TEST_CASE("read_cpu_quota reads cgroup v1 cfs quota and period", "[trainer][cpu]") {
    TempDir root;
    std::filesystem::create_directories(root.path() / "cpu");
    write_text(root.file("cpu/cpu.cfs_quota_us"), "150000\n");
    write_text(root.file("cpu/cpu.cfs_period_us"), "100000\n");
    CHECK(*read_cpu_quota(root.path().string()) == Approx(1.5));
    write_text(root.file("cpu/cpu.cfs_quota_us"), "-1\n");
    CHECK_FALSE(read_cpu_quota(root.path().string()));
}

TEST_CASE("read_cpu_quota gives nothing without cgroup files", "[trainer][cpu]") {
    TempDir root;
    CHECK_FALSE(read_cpu_quota(root.path().string()));
}

TEST_CASE("auto_threads divides the quota, not the host's cores, by local processes",
          "[trainer][cpu]") {
    CHECK(auto_threads(4.0, 64, 1) == 4);
    CHECK(auto_threads(4.0, 64, 2) == 2);
    CHECK(auto_threads(2.5, 64, 1) == 3);
    CHECK(auto_threads(std::nullopt, 8, 2) == 4);
    CHECK(auto_threads(1.0, 8, 4) == 1);
    CHECK(auto_threads(16.0, 2, 1) == 2);
}
