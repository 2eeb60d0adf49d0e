#include "job/wait_condition.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

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
