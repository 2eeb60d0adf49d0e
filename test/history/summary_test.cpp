// A record's summary: how long a job ran (its queue and suspensions left out, unknown where a
// time is missing), its restarts, its cost and the estimate made at submit.

#include "history/summary.h"

#include <catch2/catch.hpp>

#include "cost/estimate_inputs.h"

using kftrain::diagnose::EventEvidence;
using kftrain::history::run_seconds;
using kftrain::history::summarize;
using kftrain::job::JobPhase;
using kftrain::job::JobStatus;

namespace {

JobStatus finished_job() {
    JobStatus s;
    s.name = "bert";
    s.namespace_ = "team-a";
    s.uid = "uid-1";
    s.phase = JobPhase::Succeeded;
    s.created = "2026-12-01T09:00:00Z";
    s.started = "2026-12-01T10:00:00Z";
    s.finished = "2026-12-01T11:00:00Z";
    s.replicas_wanted = 2;
    s.requests = {{"Master", 1, 2, 4.0 * (1 << 30), 0}, {"Worker", 1, 2, 4.0 * (1 << 30), 0}};
    return s;
}

EventEvidence event(const std::string& reason, const std::string& time) {
    return {"pytorchjob/bert", reason, "", time, false};
}

}  // namespace

TEST_CASE("a job's run time leaves out its queue and its suspensions", "[history]") {
    const JobStatus s = finished_job();
    CHECK(run_seconds(s, {}, 0) == 3600);  // created at 9, waited in a queue until 10

    // Suspended at 10:20 and resumed at 10:40: the operator reset startTime to 10:40, and the
    // pods' first start says it ran from 10:00.
    JobStatus resumed = s;
    resumed.started = "2026-12-01T10:40:00Z";
    const std::vector<EventEvidence> events = {event("Started", "2026-12-01T10:00:00Z"),
                                               event("PyTorchJobSuspended", "2026-12-01T10:20:00Z"),
                                               event("PyTorchJobResumed", "2026-12-01T10:40:00Z"),
                                               event("Started", "2026-12-01T10:41:00Z")};
    CHECK(run_seconds(resumed, events, 0) == 2400);

    // A job still running runs until now.
    JobStatus running = s;
    running.phase = JobPhase::Running;
    running.finished.clear();
    CHECK(run_seconds(running, {}, 1796119200 + 600) == 600);  // 10:10
}

TEST_CASE("a job's run time is unknown, not 0, when a time it needs is missing", "[history]") {
    JobStatus never = finished_job();
    never.started.clear();
    CHECK(!run_seconds(never, {}, 0));
    JobStatus no_end = finished_job();
    no_end.finished = "yesterday";
    CHECK(!run_seconds(no_end, {}, 0));
}

TEST_CASE("a summary counts restarts, prices the run time and keeps submit's estimate",
          "[history]") {
    JobStatus s = finished_job();
    s.phase = JobPhase::Failed;
    s.replicas.resize(2);
    s.replicas[0].name = "master-0";
    s.replicas[0].restarts = 2;
    s.replicas[1].name = "worker-0";
    s.replicas[1].restarts = 1;
    s.labels = {{"kftrain.io/submitted-by", "alice"}, {"kueue.x-k8s.io/queue-name", "team-q"}};
    s.annotations = {{"kftrain.io/estimated-cost", "0.5"}};
    const kftrain::cost::Pricing pricing = kftrain::cost::load_pricing("", "").value();
    auto summary = summarize("ctx", s, {}, pricing, "worker-0 exited 1", 1796205600);
    CHECK(summary.phase == "Failed");
    CHECK(summary.restarts == 3);
    CHECK(summary.submitted_by == "alice");
    CHECK(summary.queue == "team-q");
    CHECK(summary.estimated_cost == 0.5);
    CHECK(summary.why == "worker-0 exited 1");
    CHECK(summary.recorded == "2026-12-02T10:00:00Z");
    REQUIRE(summary.cost.amount);
    CHECK(*summary.cost.amount == Approx(summary.cost.per_hour));  // one hour
    CHECK(summary.cost.unpriced.empty());

    s.requests.clear();
    auto unpriced = summarize("ctx", s, {}, pricing, "", 1796205600);
    CHECK(!unpriced.cost.amount);
    CHECK(!unpriced.cost.unpriced.empty());
}
