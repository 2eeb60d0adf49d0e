#include <catch2/catch.hpp>
#include <string>

#include "backend/local/local_fixture.h"
#include "support/text.h"

using kftrain::test::LocalJobs;

TEST_CASE("prune --local deletes this machine's finished jobs older than --older-than",
          "[local][prune][cli]") {
    LocalJobs jobs;
    auto file = jobs.job_file("done-here", 1, {"--steps", "1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    REQUIRE(jobs.wait_finished("done-here").phase == kftrain::job::JobPhase::Succeeded);

    auto young = jobs.kftrain({"prune", "--older-than", "1h", "--local"});
    CHECK(young.code == 0);
    CHECK(young.out == "No finished jobs older than 1h.\n");

    auto dry = jobs.kftrain({"prune", "--older-than", "0s", "--local", "--dry-run"});
    CHECK(dry.out == "pytorchjob/done-here would be deleted\n1 job would be deleted\n");
    CHECK(jobs.kftrain({"status", "done-here", "--local"}).code == 0);

    auto pruned = jobs.kftrain({"prune", "--older-than", "0s", "--local"});
    INFO(pruned.err);
    CHECK(pruned.code == 0);
    CHECK(pruned.out == "pytorchjob/done-here deleted\n1 job deleted\n");
    CHECK(jobs.kftrain({"status", "done-here", "--local"}).code == 3);
}
