#include <catch2/catch.hpp>

#include "cli/verbs/history/prune_cmd.h"
#include "support/text.h"

using namespace kftrain;

namespace {

job::JobStatus prune_candidate(const std::string& name, job::JobPhase phase,
                               const std::string& finished) {
    job::JobStatus status;
    status.name = name;
    status.phase = phase;
    status.finished = finished;
    return status;
}

}  // namespace

TEST_CASE("prune takes finished jobs older than --older-than, never one of unknown age",
          "[history][prune]") {
    const std::vector<job::JobStatus> jobs = {
        prune_candidate("old-ok", job::JobPhase::Succeeded, "2024-04-01T00:00:00Z"),
        prune_candidate("old-failed", job::JobPhase::Failed, "2024-04-01T00:00:00Z"),
        prune_candidate("recent", job::JobPhase::Succeeded, "2024-05-01T11:00:00Z"),
        prune_candidate("no-time", job::JobPhase::Succeeded, ""),
        prune_candidate("bad-time", job::JobPhase::Failed, "yesterday"),
        prune_candidate("running", job::JobPhase::Running, "2024-04-01T00:00:00Z"),
    };
    const std::time_t now = kftrain::test::time_at("2024-05-01T12:00:00Z");
    auto names = [](const std::vector<job::JobStatus>& found) {
        std::vector<std::string> out;
        for (const auto& job : found) {
            out.push_back(job.name);
        }
        return out;
    };
    int skipped = -1;
    const std::set<job::JobPhase> both = {job::JobPhase::Succeeded, job::JobPhase::Failed};
    CHECK(names(cli::prunable_jobs(jobs, both, 7 * 86400, now, skipped)) ==
          std::vector<std::string>{"old-ok", "old-failed"});
    CHECK(skipped == 2);
    CHECK(names(cli::prunable_jobs(jobs, {job::JobPhase::Failed}, 7 * 86400, now, skipped)) ==
          std::vector<std::string>{"old-failed"});
    CHECK(names(cli::prunable_jobs(jobs, both, 3600, now, skipped)) ==
          std::vector<std::string>{"old-ok", "old-failed", "recent"});
}
