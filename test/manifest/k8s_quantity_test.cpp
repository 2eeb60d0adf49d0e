#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "manifest/k8s/quantity.h"

using kftrain::manifest::k_quantity_expected;
using kftrain::manifest::parse_quantity;
using kftrain::manifest::read_quantity;

namespace {

const std::string k_out_of_range =
    "is out of range: a quantity is below 2^63 base units (8Ei bytes) and no finer than 1n";

}  // namespace

TEST_CASE("quantities read in base units with every suffix and an exponent", "[manifest]") {
    struct Case {
        std::string text;
        double value;
    };
    const std::vector<Case> cases = {
        {"4", 4},
        {"500m", 0.5},
        {"8Gi", 8.0 * 1024 * 1024 * 1024},
        {"1e3", 1000},
        {"5E-2", 0.05},
        {"1E", 1e18},
        {"-2k", -2000},
        {"+1.5", 1.5},
        {"0e99999", 0},
        {"1e" + std::string(400, '0') + "1", 10},
        {"1n", 1e-9},
        {"7Ei", 7.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto value = read_quantity(c.text);
        REQUIRE(value);
        CHECK(*value == Approx(c.value));
    }
}

TEST_CASE("quantities of any length or exponent are refused, never an abort", "[manifest]") {
    const std::string zeros(400, '0');
    struct Case {
        std::string text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"1" + zeros, k_out_of_range},    {"0." + zeros + "1", k_out_of_range},
        {"1e99999", k_out_of_range},      {"1e-99999", k_out_of_range},
        {"-1e99999", k_out_of_range},     {"1" + zeros + "Gi", k_out_of_range},
        {"8Ei", k_out_of_range},          {"10E", k_out_of_range},
        {"0.0000000001", k_out_of_range}, {"1e1" + zeros, k_out_of_range},
        {"8GG", k_quantity_expected},     {"", k_quantity_expected},
        {"0x10", k_quantity_expected},    {"inf", k_quantity_expected},
        {"nan", k_quantity_expected},     {"1e", k_quantity_expected},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto value = read_quantity(c.text);
        REQUIRE_FALSE(value);
        CHECK(value.error() == c.message);
        CHECK_FALSE(parse_quantity(c.text));
    }
}

TEST_CASE("a quantity written just under 2^63 reads back, never rounded past the range",
          "[manifest][quantity]") {
    for (const char* resource : {"memory", "cpu", "nvidia.com/gpu"}) {
        const std::string text = kftrain::manifest::quantity_text(resource, 9223372000167299976.0);
        INFO(resource << ": " << text);
        CHECK(read_quantity(text).ok());
    }
    CHECK(kftrain::manifest::quantity_text("memory", 1.5 * 1024 * 1024 * 1024) == "1.5Gi");
}
