#include "trainer/data/idx.h"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/files.h"
#include "trainer/data/datasets.h"
#include "trainer/data/file_bytes.h"
#include "trainer/data/synthetic.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer::data;

namespace {

ImageSet tiny_set(int64_t n) {
    return make_synthetic(n, 1, 28, 28, 7);
}

void gzip_file(const std::string& from, const std::string& to) {
    const auto bytes = *read_file_bytes(from);
    gzFile out = gzopen(to.c_str(), "wb");
    gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(out);
}

}  // namespace

TEST_CASE("IDX files written by write_idx_pair read back identically", "[trainer][idx]") {
    const std::string dir = make_temp_dir();
    const auto set = tiny_set(12);
    REQUIRE(write_idx_pair(set, dir + "/img", dir + "/lbl").ok());
    auto back = read_idx_pair(dir + "/img", dir + "/lbl");
    REQUIRE(back.ok());
    CHECK(back->count == 12);
    CHECK(back->rows == 28);
    CHECK(back->cols == 28);
    CHECK(back->pixels == set.pixels);
    CHECK(back->labels == set.labels);
}

TEST_CASE("IDX reader falls back to the .gz file", "[trainer][idx]") {
    const std::string dir = make_temp_dir();
    REQUIRE(write_idx_pair(tiny_set(5), dir + "/raw-img", dir + "/lbl").ok());
    gzip_file(dir + "/raw-img", dir + "/img.gz");
    auto back = read_idx_pair(dir + "/img", dir + "/lbl");
    REQUIRE(back.ok());
    CHECK(back->count == 5);
}

TEST_CASE("IDX reader names the file and the problem", "[trainer][idx]") {
    const std::string dir = make_temp_dir();
    REQUIRE(write_idx_pair(tiny_set(4), dir + "/img", dir + "/lbl").ok());
    const auto img = *read_file_bytes(dir + "/img");
    const auto lbl = *read_file_bytes(dir + "/lbl");

    SECTION("truncated images") {
        write_file(dir + "/img", img.substr(0, img.size() - 10));
        auto r = read_idx_pair(dir + "/img", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() ==
              dir + "/img" + ": 3142 bytes, expected 3152 = 16 + 4*28*28 (truncated or corrupt)");
    }
    SECTION("bad magic") {
        write_file(dir + "/lbl", img);
        auto r = read_idx_pair(dir + "/img", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == dir + "/lbl: bad magic number 2051 (expected 2049)");
    }
    SECTION("label count differs from image count") {
        std::string fewer = lbl.substr(0, lbl.size() - 1);
        fewer[7] = 3;
        write_file(dir + "/lbl", fewer);
        auto r = read_idx_pair(dir + "/img", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == dir + "/lbl: 3 labels but the images file has 4 images");
    }
    SECTION("label out of range") {
        std::string bad = lbl;
        bad[9] = 12;
        write_file(dir + "/lbl", bad);
        auto r = read_idx_pair(dir + "/img", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == dir + "/lbl: label 12 at index 1 is not below 10");
    }
    SECTION("missing file") {
        auto r = read_idx_pair(dir + "/nope", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == dir + "/nope: not found (nor " + dir + "/nope.gz)");
    }
    SECTION("corrupt gzip") {
        write_file(dir + "/gz-img.gz", "not gzip at all, but long enough to be read");
        auto r = read_idx_pair(dir + "/gz-img", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().rfind(dir + "/gz-img.gz:", 0) == 0);
    }
}

// Found by fuzz/fuzz_image_data: a side of 0 gave a set of empty images, and sides of
// 0xFFFFFFFF read as -1 with count*rows*cols wrapping around to the file's size, so a 17-byte
// file was accepted as one image of -1x-1 pixels.
TEST_CASE("IDX reader refuses images with a side of 0 or past 65535 pixels", "[trainer][idx]") {
    const std::string dir = make_temp_dir();
    auto be32 = [](uint32_t v) {
        return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                           static_cast<char>(v >> 8), static_cast<char>(v)};
    };
    write_file(dir + "/lbl", be32(2049) + be32(1) + std::string(1, '\3'));
    SECTION("sides that wrap count*rows*cols around to the file's size") {
        write_file(dir + "/img", be32(2051) + be32(1) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF) + "x");
        auto r = read_idx_pair(dir + "/img", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == dir + "/img" +
                               ": images of 4294967295x4294967295 pixels (each side must be 1 "
                               "to 65535)");
    }
    SECTION("a side of 0") {
        write_file(dir + "/img", be32(2051) + be32(1) + be32(0) + be32(28));
        auto r = read_idx_pair(dir + "/img", dir + "/lbl");
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == dir + "/img: images of 0x28 pixels (each side must be 1 to 65535)");
    }
}

TEST_CASE("make_dataset writes the four standard MNIST files that load_mnist reads",
          "[trainer][idx]") {
    const std::string dir = make_temp_dir();
    REQUIRE(
        make_dataset(kftrain::trainer::MakeDatasetOptions{"mnist", dir + "/mnist", 50, 3}).ok());
    auto splits = load_mnist(dir + "/mnist");
    REQUIRE(splits.ok());
    CHECK(splits->train.count == 50);
    CHECK(splits->test.count == kftrain::wire::synthetic_test_count(50));
}

TEST_CASE("MNIST test images of another size than the training images are refused at load",
          "[trainer][idx]") {
    const std::string dir = make_temp_dir();
    const std::string d = dir + "/mnist";
    std::filesystem::create_directories(d);
    REQUIRE(write_idx_pair(make_synthetic(8, 1, 28, 28, 1), d + "/" + k_mnist_train_images,
                           d + "/" + k_mnist_train_labels)
                .ok());
    REQUIRE(write_idx_pair(make_synthetic(4, 1, 20, 20, 2), d + "/" + k_mnist_test_images,
                           d + "/" + k_mnist_test_labels)
                .ok());
    auto splits = load_mnist(d);
    REQUIRE_FALSE(splits.ok());
    CHECK(splits.error() == d +
                                "/t10k-images-idx3-ubyte: images of 20x20, where the training "
                                "images (" +
                                d +
                                "/train-images-idx3-ubyte) are 28x28: both sets "
                                "must be of one size");
}
