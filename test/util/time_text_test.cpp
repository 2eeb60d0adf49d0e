#include "util/time_text.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using kftrain::util::format_duration;
using kftrain::util::parse_duration;
using kftrain::util::parse_duration_flag;

namespace {

const std::string k_not = "not a duration such as 90s, 1h30m or 500ms (got ";

}  // namespace

TEST_CASE("durations parse as kubectl's (Go's time.ParseDuration)", "[util][duration]") {
    struct Case {
        std::string text;
        double seconds;
    };
    const std::vector<Case> cases = {
        {"0", 0},
        {"0s", 0},
        {"90s", 90},
        {"1h30m", 5400},
        {"500ms", 0.5},
        {"1.5m", 90},
        {"2h", 7200},
        {".5s", 0.5},
        {"1.s", 1},
        {"0.3s", 0.3},
        {"300ns", 300e-9},
        {"42us", 42e-6},
        {"42\xC2\xB5s", 42e-6},  // U+00B5, the micro sign
        {"42\xCE\xBCs", 42e-6},  // U+03BC, Greek mu
        {"1h1h", 7200},          // Go takes units in any order and more than once
        {"30m1h", 5400},
        {"1m0.5s", 60.5},
        {"0.000000001s", 1e-9},
        {"1.0000000000000000000000001s", 1},  // digits past a nanosecond are dropped
        {"876000h", 876000.0 * 3600},         // the longest: 100 years
    };
    for (const Case& c : cases) {
        INFO(c.text);
        auto got = parse_duration(c.text);
        REQUIRE(got);
        CHECK(*got == Approx(c.seconds).epsilon(1e-12));
    }
}

TEST_CASE("text that is no duration is refused saying why", "[util][duration]") {
    const std::string huge(400, '9');
    struct Case {
        std::string text;
        std::string error;
    };
    const std::vector<Case> cases = {
        {"", k_not + "\"\")"},
        {"90", k_not + "90; add a unit, as in 90s)"},
        {"1.5", k_not + "1.5; add a unit, as in 1.5s)"},
        {"1d", k_not + "1d; kubectl takes no d: write a day as 24h)"},
        {"-5s", "must not be negative (got -5s)"},
        {"-1h30m", "must not be negative (got -1h30m)"},
        {"876000h1ns", "must be a duration of at most 876000h, 100 years (got 876000h1ns)"},
        {huge + "s", "must be a duration of at most 876000h, 100 years (got " + huge + "s)"},
        {"9999999999h", "must be a duration of at most 876000h, 100 years (got 9999999999h)"},
        {"1e1h", k_not + "1e1h)"},
        {"0x10s", k_not + "0x10s)"},
        {"1e308d", k_not + "1e308d)"},
        {"+5s", k_not + "+5s)"},
        {"soon", k_not + "soon)"},
        {"nan", k_not + "nan)"},
        {"infs", k_not + "infs)"},
        {" 5s", k_not + " 5s)"},
        {"5s ", k_not + "5s )"},
        {"1 s", k_not + "1 s)"},
        {"5S", k_not + "5S)"},
        {".", k_not + ".)"},
        {".s", k_not + ".s)"},
        {"1.2.3s", k_not + "1.2.3s)"},
        {"h", k_not + "h)"},
        {"1h30", k_not + "1h30)"},
        {"00", k_not + "00; add a unit, as in 00s)"},
        {"two hours", k_not + "two hours)"},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        auto got = parse_duration(c.text);
        REQUIRE_FALSE(got);
        CHECK(got.error() == c.error);
    }
}

TEST_CASE("whole seconds are a duration only for --request-timeout, as kubectl takes them",
          "[util][duration]") {
    using kftrain::util::k_request_timeout;
    CHECK(*parse_duration("30", true) == 30);
    CHECK(*parse_duration("0045", true) == 45);
    CHECK(*parse_duration("0", true) == 0);
    CHECK(*parse_duration("1m30s", true) == 90);
    CHECK(*parse_duration("3153600000", true) == 3153600000.0);  // 876000h
    const std::string huge(400, '9');
    for (const std::string& text : {std::string("3153600001"), huge}) {
        auto got = parse_duration(text, true);
        REQUIRE_FALSE(got);
        CHECK(got.error() == "must be a duration of at most 876000h, 100 years (got " + text + ")");
    }
    CHECK(parse_duration("-5", true).error() == "must not be negative (got -5)");
    CHECK(parse_duration("1.5", true).error() == k_not + "1.5; add a unit, as in 1.5s)");
    CHECK(parse_duration_flag("--request-timeout", "30", k_request_timeout).value() == 30);
}

TEST_CASE("days are a unit only for the flags that look back over records", "[util][duration]") {
    using kftrain::util::k_age_duration;
    struct Case {
        const char* text;
        double seconds;
    };
    for (const Case& c : std::vector<Case>{{"7d", 7 * 86400.0},
                                           {"1d12h", 36 * 3600.0},
                                           {"0.5d", 43200.0},
                                           {"3650d", 3650 * 86400.0},
                                           {"90m", 5400.0}}) {
        INFO(c.text);
        auto parsed = parse_duration_flag("--since", c.text, k_age_duration);
        REQUIRE(parsed);
        CHECK(*parsed == c.seconds);
    }
    CHECK(parse_duration_flag("--since", "7", k_age_duration).error() ==
          "--since: " + k_not + "7; add a unit, as in 7s)");
    CHECK(parse_duration_flag("--older-than", "-1d", k_age_duration).error() ==
          "--older-than: must not be negative (got -1d)");
    // Every other duration flag still refuses d: kubectl takes none.
    CHECK_FALSE(parse_duration("7d"));
}

TEST_CASE("a duration flag's error names the flag, its range and the value", "[util][duration]") {
    using kftrain::util::DurationRule;
    const DurationRule day{1, 86400, "from 1s to 24h"};
    struct Case {
        std::string flag;
        std::string text;
        DurationRule rule;
        std::string error;  // "" when taken
    };
    const std::vector<Case> cases = {
        {"--stuck-after", "24h", day, ""},
        {"--stuck-after", "1s", day, ""},
        {"--stuck-after", "24h1ns", day,
         "--stuck-after: must be a duration from 1s to 24h (got 24h1ns)"},
        {"--stuck-after", "999ms", day,
         "--stuck-after: must be a duration from 1s to 24h (got 999ms)"},
        {"--interval", "1ns", kftrain::util::k_positive_duration, ""},
        {"--interval", "0", kftrain::util::k_positive_duration,
         "--interval: must be a duration longer than 0 (got 0)"},
        {"--timeout", "0", kftrain::util::k_any_duration, ""},
        {"--deadline", "90", kftrain::util::k_positive_duration,
         "--deadline: " + k_not + "90; add a unit, as in 90s)"},
        {"--since", "-5s", kftrain::util::k_any_duration,
         "--since: must not be negative (got -5s)"},
    };
    for (const Case& c : cases) {
        INFO(c.flag << " " << c.text);
        auto got = parse_duration_flag(c.flag, c.text, c.rule);
        if (c.error.empty()) {
            CHECK(got);
        } else {
            REQUIRE_FALSE(got);
            CHECK(got.error() == c.error);
        }
    }
}

TEST_CASE("durations are shown as kubectl shows them, without zero padding", "[util][duration]") {
    struct Case {
        double seconds;
        std::string text;
    };
    const std::vector<Case> cases = {
        {0, "0s"},
        {-5, "0s"},
        {std::nan(""), "0s"},
        {3e-7, "0us"},
        {42e-6, "42us"},
        {999.4e-6, "999us"},
        {999.6e-6, "1ms"},
        {0.001, "1ms"},
        {0.00125, "1.25ms"},
        {0.0015, "1.5ms"},
        {0.0452, "45ms"},
        {0.3, "300ms"},
        {0.9999, "1s"},
        {1.25, "1.25s"},
        {1.5, "1.5s"},
        {6, "6s"},
        {42.04, "42s"},
        {42.5, "42.5s"},
        {45, "45s"},
        {59.97, "1m0s"},
        {60, "1m0s"},
        {185, "3m5s"},
        {192, "3m12s"},
        {3599.6, "1h0m"},
        {7500, "2h5m"},
        {7620, "2h7m"},
        {273600, "3d4h"},
        {1e12, ">1000y"},
        {std::numeric_limits<double>::infinity(), ">1000y"},
    };
    for (const Case& c : cases) {
        INFO(c.seconds);
        CHECK(format_duration(c.seconds) == c.text);
    }
}

TEST_CASE("a shown duration below a day reads back as the same duration", "[util][duration]") {
    for (double seconds : {0.0, 42e-6, 0.00125, 0.3, 1.5, 42.0, 185.0, 7620.0}) {
        INFO(seconds);
        auto back = parse_duration(format_duration(seconds));
        REQUIRE(back);
        CHECK(*back == Approx(seconds));
    }
}

TEST_CASE("a timestamp with milliseconds reads back to the millisecond", "[util][time]") {
    CHECK(kftrain::util::format_timestamp_ms(1714557600.123) == "2024-05-01T10:00:00.123Z");
    CHECK(kftrain::util::format_timestamp_ms(1714557600.0) == "2024-05-01T10:00:00.000Z");
    auto back = kftrain::util::parse_timestamp_seconds("2024-05-01T10:00:00.123Z");
    REQUIRE(back);
    CHECK(*back == Approx(1714557600.123));
    CHECK(*kftrain::util::parse_timestamp("2024-05-01T10:00:00.999Z") == 1714557600);
}
