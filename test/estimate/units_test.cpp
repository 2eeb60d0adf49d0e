#include "estimate/units.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

using namespace kftrain::estimate;

TEST_CASE("estimate parses bandwidths in bits and bytes", "[estimate]") {
    struct Case {
        std::string text;
        std::optional<double> bytes_per_s;
    };
    const Case cases[] = {
        {"100Gbps", 12.5e9},     {"25Gb/s", 3.125e9},      {"10GB/s", 10e9},
        {"600GB/s", 600e9},      {"1GiB/s", 1073741824.0}, {"800Mbps", 100e6},
        {"1.5 GB/s", 1.5e9},     {"100", std::nullopt},    {"fast", std::nullopt},
        {"0Gbps", std::nullopt}, {"-1Gbps", std::nullopt}, {"10Xbps", std::nullopt},
        {"", std::nullopt},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const auto got = parse_bandwidth(c.text);
        REQUIRE(got.has_value() == c.bytes_per_s.has_value());
        if (got) {
            CHECK(*got == Approx(*c.bytes_per_s));
        }
    }
}

TEST_CASE("estimate parses latencies in us, ms or s", "[estimate]") {
    CHECK(parse_latency("30us") == Approx(30e-6));
    CHECK(parse_latency("0.5ms") == Approx(5e-4));
    CHECK(parse_latency("1s") == 1.0);
    CHECK_FALSE(parse_latency("30"));
    CHECK_FALSE(parse_latency("30 minutes"));
}

TEST_CASE("estimate parses budgets with or without a dollar sign", "[estimate]") {
    CHECK(parse_money("50") == 50.0);
    CHECK(parse_money("$12.5") == 12.5);
    CHECK_FALSE(parse_money("fifty"));
    CHECK_FALSE(parse_money("-3"));
    CHECK_FALSE(parse_money("50 USD"));
}

TEST_CASE("estimate formats bandwidths and money for people", "[estimate]") {
    CHECK(format_bandwidth(12.5e9) == "12.5 GB/s (100 Gbps)");
    CHECK(format_bandwidth(2e9) == "2 GB/s (16 Gbps)");
    CHECK(format_money(0.0042) == "$0.0042");
    CHECK(format_money(12.345) == "$12.35");
    CHECK(format_money(1234567) == "$1,234,567");
    // Absurd resources cost absurd sums: shown, never wrapped to a negative number.
    CHECK(format_money(999e12) == "$999,000,000,000,000");
    CHECK(format_money(1e15) == "$1e+15");
    CHECK(format_money(9.3e30) == "$9.3e+30");
}
