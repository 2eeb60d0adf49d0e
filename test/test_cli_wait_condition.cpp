#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "job/wait_condition.h"
#include "util/time_text.h"

using namespace kftrain;

TEST_CASE("wait judges each phase against each condition", "[cluster][wait]") {
    using V = job::WaitVerdict;
    struct Case {
        job::WaitFor condition;
        job::JobPhase phase;
        job::WaitVerdict verdict;
    };
    const Case cases[] = {
        {job::WaitFor::Succeeded, job::JobPhase::Created, V::Pending},
        {job::WaitFor::Succeeded, job::JobPhase::Running, V::Pending},
        {job::WaitFor::Succeeded, job::JobPhase::Restarting, V::Pending},
        {job::WaitFor::Succeeded, job::JobPhase::Succeeded, V::Met},
        {job::WaitFor::Succeeded, job::JobPhase::Failed, V::Failed},
        {job::WaitFor::Running, job::JobPhase::Created, V::Pending},
        {job::WaitFor::Running, job::JobPhase::Running, V::Met},
        {job::WaitFor::Running, job::JobPhase::Succeeded, V::Met},
        {job::WaitFor::Running, job::JobPhase::Failed, V::Failed},
        {job::WaitFor::Created, job::JobPhase::Unknown, V::Met},
        {job::WaitFor::Created, job::JobPhase::Failed, V::Met},
        {job::WaitFor::Suspended, job::JobPhase::Running, V::Pending},
        {job::WaitFor::Suspended, job::JobPhase::Suspended, V::Met},
        {job::WaitFor::Suspended, job::JobPhase::Succeeded, V::Unreachable},
        {job::WaitFor::Suspended, job::JobPhase::Failed, V::Failed},
    };
    for (const auto& c : cases) {
        CAPTURE(static_cast<int>(c.condition), job::phase_name(c.phase));
        CHECK(job::judge_wait(c.condition, c.phase) == c.verdict);
    }
}

TEST_CASE("wait condition names are parsed", "[cluster][wait]") {
    CHECK(job::parse_wait_for("succeeded") == job::WaitFor::Succeeded);
    CHECK(job::parse_wait_for("running") == job::WaitFor::Running);
    CHECK_FALSE(job::parse_wait_for("Succeeded"));
    CHECK_FALSE(job::parse_wait_for("done"));
}

TEST_CASE("durations for --timeout and --interval read like kubectl's", "[cluster][wait]") {
    CHECK(kftrain::util::parse_duration("2h") == 7200.0);
    CHECK(kftrain::util::parse_duration("1h30m") == 5400.0);
    CHECK(kftrain::util::parse_duration("90s") == 90.0);
    CHECK(kftrain::util::parse_duration("500ms") == 0.5);
    CHECK(kftrain::util::parse_duration("0") == 0.0);
    CHECK(kftrain::util::parse_duration("1.5m") == 90.0);
    // Only decimal numbers as Go writes them: no hexadecimal, exponent, nan, inf or sign.
    const std::string huge(400, '9');
    for (const std::string& bad :
         std::vector<std::string>{"", "2", "two hours", "-5s", "5x", "h", "0x10s", "nans", "infs",
                                  "1e-300s", "1.2.3s", "+5s", " 5s", ".s", huge + "d"}) {
        CAPTURE(bad);
        CHECK_FALSE(kftrain::util::parse_duration(bad));
    }
}
