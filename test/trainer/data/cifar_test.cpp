#include "trainer/data/cifar.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/files.h"
#include "trainer/data/file_bytes.h"
#include "trainer/data/synthetic.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer::data;

namespace {

void write_cifar_dir(const std::string& dir, int64_t per_batch) {
    for (int i = 1; i <= 5; ++i) {
        const auto set = make_synthetic(per_batch, 3, 32, 32, static_cast<uint64_t>(i));
        REQUIRE(write_cifar_batch(set, dir + "/data_batch_" + std::to_string(i) + ".bin").ok());
    }
    REQUIRE(
        write_cifar_batch(make_synthetic(per_batch, 3, 32, 32, 9), dir + "/test_batch.bin").ok());
}

}  // namespace

TEST_CASE("load_cifar10 reads the five training batches and the test batch", "[trainer][cifar]") {
    const std::string dir = make_temp_dir();
    write_cifar_dir(dir, 4);
    auto splits = load_cifar10(dir);
    REQUIRE(splits.ok());
    CHECK(splits->train.count == 20);
    CHECK(splits->test.count == 4);
    CHECK(splits->train.channels == 3);
    const auto first = make_synthetic(4, 3, 32, 32, 1);
    CHECK(std::equal(first.pixels.begin(), first.pixels.end(), splits->train.pixels.begin()));
    CHECK(std::equal(first.labels.begin(), first.labels.end(), splits->train.labels.begin()));
}

TEST_CASE("load_cifar10 reports a truncated batch file by name", "[trainer][cifar]") {
    const std::string dir = make_temp_dir();
    write_cifar_dir(dir, 2);
    const auto bytes = *read_file_bytes(dir + "/data_batch_3.bin");
    write_file(dir + "/data_batch_3.bin", bytes.substr(0, 5000));
    auto splits = load_cifar10(dir);
    REQUIRE_FALSE(splits.ok());
    CHECK(splits.error() == dir + "/data_batch_3.bin" +
                                ": 5000 bytes is not a whole number of 3073-byte records "
                                "(truncated or corrupt)");
}

TEST_CASE("load_cifar10 reports a missing batch file", "[trainer][cifar]") {
    const std::string dir = make_temp_dir();
    write_cifar_dir(dir, 1);
    std::filesystem::remove(dir + "/test_batch.bin");
    auto splits = load_cifar10(dir);
    REQUIRE_FALSE(splits.ok());
    CHECK(splits.error().find("test_batch.bin: not found") != std::string::npos);
}
