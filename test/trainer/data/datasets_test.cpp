#include "trainer/data/datasets.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

using namespace kftrain::trainer;

namespace {

std::set<std::string> images_of(const data::ImageSet& set) {
    std::set<std::string> out;
    const auto bytes = static_cast<std::size_t>(set.image_bytes());
    for (std::size_t i = 0; i < static_cast<std::size_t>(set.count); ++i) {
        out.emplace(reinterpret_cast<const char*>(set.pixels.data()) + i * bytes, bytes);
    }
    return out;
}

}  // namespace

TEST_CASE("synthetic evaluation samples are held out: none is a training sample",
          "[trainer][synthetic]") {
    for (const std::string model : {"mlp", "resnet18"}) {
        TrainOptions o;
        o.dataset = "synthetic";
        o.model = model;
        o.samples = 500;
        const auto splits = data::load_datasets(o);
        REQUIRE(splits.ok());
        INFO(model);
        CHECK(splits->train.count == 500);
        CHECK(splits->test.count == 100);
        const auto train = images_of(splits->train);
        const auto test = images_of(splits->test);
        CHECK(test.size() == 100);
        std::size_t shared = 0;
        for (const auto& image : test) {
            shared += train.count(image);
        }
        CHECK(shared == 0);
    }
}
