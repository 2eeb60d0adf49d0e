#include <catch2/catch.hpp>

#include "cli/time_text.h"
#include "cli/wait_condition.h"

using namespace kftrain::cli;

TEST_CASE("wait judges each phase against each condition", "[cluster][wait]") {
    using V = WaitVerdict;
    struct Case {
        WaitFor condition;
        JobPhase phase;
        WaitVerdict verdict;
    };
    const Case cases[] = {
        {WaitFor::Succeeded, JobPhase::Created, V::Pending},
        {WaitFor::Succeeded, JobPhase::Running, V::Pending},
        {WaitFor::Succeeded, JobPhase::Restarting, V::Pending},
        {WaitFor::Succeeded, JobPhase::Succeeded, V::Met},
        {WaitFor::Succeeded, JobPhase::Failed, V::Failed},
        {WaitFor::Running, JobPhase::Created, V::Pending},
        {WaitFor::Running, JobPhase::Running, V::Met},
        {WaitFor::Running, JobPhase::Succeeded, V::Met},
        {WaitFor::Running, JobPhase::Failed, V::Failed},
        {WaitFor::Created, JobPhase::Unknown, V::Met},
        {WaitFor::Created, JobPhase::Failed, V::Met},
        {WaitFor::Suspended, JobPhase::Running, V::Pending},
        {WaitFor::Suspended, JobPhase::Suspended, V::Met},
        {WaitFor::Suspended, JobPhase::Succeeded, V::Unreachable},
        {WaitFor::Suspended, JobPhase::Failed, V::Failed},
    };
    for (const auto& c : cases) {
        CAPTURE(static_cast<int>(c.condition), phase_name(c.phase));
        CHECK(judge_wait(c.condition, c.phase) == c.verdict);
    }
}

TEST_CASE("wait condition names are parsed", "[cluster][wait]") {
    CHECK(parse_wait_for("succeeded") == WaitFor::Succeeded);
    CHECK(parse_wait_for("running") == WaitFor::Running);
    CHECK_FALSE(parse_wait_for("Succeeded"));
    CHECK_FALSE(parse_wait_for("done"));
}

TEST_CASE("durations for --timeout and --interval read like kubectl's", "[cluster][wait]") {
    CHECK(parse_duration("2h") == 7200.0);
    CHECK(parse_duration("1h30m") == 5400.0);
    CHECK(parse_duration("90s") == 90.0);
    CHECK(parse_duration("500ms") == 0.5);
    CHECK(parse_duration("0") == 0.0);
    for (const char* bad : {"", "2", "two hours", "-5s", "5x", "h"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_duration(bad));
    }
}
