#include "trainer/startup/cpu_quota.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/files.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer;

TEST_CASE("read_cpu_quota reads cgroup v2 cpu.max", "[trainer][cpu]") {
    const std::string root = make_temp_dir();
    write_file(root + "/cpu.max", "250000 100000\n");
    REQUIRE(read_cpu_quota(root));
    CHECK(*read_cpu_quota(root) == Approx(2.5));
    write_file(root + "/cpu.max", "max 100000\n");
    CHECK_FALSE(read_cpu_quota(root));
}

TEST_CASE("read_cpu_quota reads cgroup v1 cfs quota and period", "[trainer][cpu]") {
    const std::string root = make_temp_dir();
    std::filesystem::create_directories(std::filesystem::path(root) / "cpu");
    write_file(root + "/cpu/cpu.cfs_quota_us", "150000\n");
    write_file(root + "/cpu/cpu.cfs_period_us", "100000\n");
    CHECK(*read_cpu_quota(root) == Approx(1.5));
    write_file(root + "/cpu/cpu.cfs_quota_us", "-1\n");
    CHECK_FALSE(read_cpu_quota(root));
}

TEST_CASE("read_cpu_quota gives nothing without cgroup files", "[trainer][cpu]") {
    const std::string root = make_temp_dir();
    CHECK_FALSE(read_cpu_quota(root));
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
