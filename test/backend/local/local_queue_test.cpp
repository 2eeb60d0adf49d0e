// The local queue (submit --queue on this machine): whose turn it is, where a job stands, and
// end to end, two and three jobs of one queue run one at a time in submit order.
#include "backend/local/queue/local_queue.h"

#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backend/local/local_fixture.h"
#include "backend/local/state/job_state.h"
#include "support/files.h"

using namespace kftrain;

using kftrain::backend::local::JobState;
using kftrain::backend::local::local_queue_entries;
using kftrain::backend::local::local_queue_status;
using kftrain::backend::local::local_queues;
using kftrain::backend::local::queue_member;
using kftrain::backend::local::QueueMember;
using kftrain::backend::local::turn_has_come;
using kftrain::test::LocalJobs;

namespace job = kftrain::job;

namespace {

// A job of queue team-a that entered it at order, waiting (not admitted) and alive.
QueueMember queue_member(const std::string& name, long long order, bool admitted = false,
                         bool in_line = true, const std::string& queue = "team-a") {
    QueueMember m;
    m.name = name;
    m.kind = "PyTorchJob";
    m.queue = queue;
    m.order = order;
    m.admitted = admitted;
    m.in_line = in_line;
    return m;
}

JobState waiting_state(const std::string& name, long long order) {
    JobState state;
    state.name = name;
    state.queue = "team-a";
    state.queued = "2026-11-23T10:00:00Z";
    state.queue_order = order;
    return state;
}

}  // namespace

TEST_CASE("a job's turn comes when no job of its queue runs and none waits ahead of it",
          "[local][queue]") {
    SECTION("alone in its queue") {
        CHECK(turn_has_come({queue_member("a", 1)}, "a"));
    }
    SECTION("a running job of the queue holds every waiting one back") {
        CHECK_FALSE(turn_has_come({queue_member("run", 5, true), queue_member("a", 1)}, "a"));
    }
    SECTION("the earlier of two waiting jobs goes first, ties by name") {
        std::vector<QueueMember> two{queue_member("b", 2), queue_member("a", 1)};
        CHECK(turn_has_come(two, "a"));
        CHECK_FALSE(turn_has_come(two, "b"));
        std::vector<QueueMember> tie{queue_member("y", 7), queue_member("x", 7)};
        CHECK(turn_has_come(tie, "x"));
        CHECK_FALSE(turn_has_come(tie, "y"));
    }
    SECTION("jobs that ended, were suspended or lost their supervisor hold nothing back") {
        CHECK(turn_has_come({queue_member("gone", 0, true, false),
                             queue_member("old", 0, false, false), queue_member("a", 1)},
                            "a"));
    }
    SECTION("another queue's jobs and jobs in no queue hold nothing back") {
        CHECK(turn_has_come({queue_member("other", 0, true, true, "team-b"), queue_member("a", 1)},
                            "a"));
        CHECK(turn_has_come(
            {queue_member("run", 0, true), queue_member("free", 1, false, true, "")}, "free"));
    }
}

TEST_CASE("a job of a local queue is Pending with its position, then Admitted, then Finished",
          "[local][queue]") {
    std::vector<QueueMember> members{queue_member("run", 1, true), queue_member("b", 3),
                                     queue_member("a", 2)};

    JobState b = waiting_state("b", 3);
    job::QueueStatus waiting = local_queue_status(b, members);
    CHECK(waiting.local);
    CHECK(waiting.state == job::QueueState::Pending);
    CHECK(waiting.local_queue == "team-a");
    CHECK(waiting.position == 2);
    CHECK(waiting.pending_in_queue == 2);
    CHECK(waiting.queued_since == "2026-11-23T10:00:00Z");
    CHECK(waiting.message == "waiting for job run to end");

    JobState admitted = waiting_state("run", 1);
    admitted.admitted = "2026-11-23T10:01:00Z";
    admitted.phase = "Running";
    CHECK(local_queue_status(admitted, members).state == job::QueueState::Admitted);
    CHECK(local_queue_status(admitted, members).since == "2026-11-23T10:01:00Z");

    admitted.phase = "Succeeded";
    CHECK(local_queue_status(admitted, members).state == job::QueueState::Finished);

    JobState suspended = waiting_state("c", 9);
    suspended.phase = "Suspended";
    job::QueueStatus out = local_queue_status(suspended, members);
    CHECK_FALSE(out.position.has_value());
    CHECK(out.message == "suspended: out of the queue until resumed, then at its back");
}

TEST_CASE("list --queue orders a local queue: the running job, the waiting ones, those ended",
          "[local][queue]") {
    QueueMember ended = queue_member("done", 0, true, false);
    ended.finished = true;
    std::vector<QueueMember> members{queue_member("late", 9), ended, queue_member("run", 5, true),
                                     queue_member("early", 6),
                                     queue_member("elsewhere", 1, false, true, "team-b")};
    auto entries = local_queue_entries(members, "team-a");
    REQUIRE(entries.size() == 4);
    CHECK(entries[0].job == "run");
    CHECK(entries[0].state == job::QueueState::Admitted);
    CHECK_FALSE(entries[0].position.has_value());
    CHECK(entries[1].job == "early");
    CHECK(entries[1].position == 1);
    CHECK(entries[2].job == "late");
    CHECK(entries[2].position == 2);
    CHECK(entries[3].job == "done");
    CHECK(entries[3].state == job::QueueState::Finished);

    auto queues = local_queues(members);
    REQUIRE(queues.size() == 2);
    CHECK(queues[0].name == "team-a");
    CHECK(queues[0].pending == 2);
    CHECK(queues[0].admitted == 1);
    CHECK(queues[1].name == "team-b");
    CHECK(queues[1].pending == 1);
}

TEST_CASE("a job's state decides what the queue sees of it", "[local][queue]") {
    JobState state = waiting_state("a", 4);
    CHECK(queue_member(state, true).in_line);
    CHECK_FALSE(queue_member(state, false).in_line);  // its supervisor is gone
    state.phase = "Suspended";
    CHECK_FALSE(queue_member(state, true).in_line);
    state.phase = "Failed";
    CHECK(queue_member(state, true).finished);
    CHECK_FALSE(queue_member(state, true).in_line);
}

TEST_CASE("two local jobs of one queue run one at a time in submit order", "[local][queue][cli]") {
    LocalJobs jobs;
    const std::string hold = jobs.dir() + "/let-first-finish";
    auto first = jobs.job_file("first", 1, {"--steps", "2", "--hold-file", hold});
    auto second = jobs.job_file("second", 2, {"--steps", "2", "--env-out", jobs.dir()});

    auto submitted = jobs.kftrain({"submit", "-f", first, "--local", "--queue", "team-a"});
    REQUIRE(submitted.code == 0);
    CHECK(submitted.out == "job first started (local queue team-a: its turn came at once)\n");
    auto queued = jobs.kftrain(
        {"submit", "-f", second, "--local", "--queue", "team-a", "--priority-class", "high"});
    REQUIRE(queued.code == 0);
    CHECK(queued.out ==
          "job second queued in team-a (local, position 1): it starts when the jobs ahead of "
          "it end\n");
    CHECK(queued.err.find("kftrain: note: running on this machine: priority class high does "
                          "not apply (the local queue team-a runs its jobs in submit order)\n") !=
          std::string::npos);

    // The second waits: no replica started, Queued in team-a behind the first.
    auto status = jobs.backend().status("second");
    REQUIRE(status);
    CHECK(status->phase == job::JobPhase::Created);
    REQUIRE(status->queue.has_value());
    CHECK(status->queue->state == job::QueueState::Pending);
    CHECK(status->queue->position == 1);
    for (const auto& replica : status->replicas) {
        CHECK(replica.pid == 0);
    }
    auto shown = jobs.kftrain({"status", "second", "--local"});
    CHECK(shown.out.find("State:      Queued in team-a (position 1 of 1 in team-a): waiting for "
                         "job first to end\n") != std::string::npos);
    auto listed = jobs.kftrain({"list", "--local"});
    CHECK(listed.out.find("second  PyTorchJob  Queued") != std::string::npos);
    auto line = jobs.kftrain({"list", "--queue", "team-a", "--local"});
    CHECK(line.out.find("-         first   PyTorchJob  Admitted") != std::string::npos);
    CHECK(line.out.find("1         second  PyTorchJob  Pending") != std::string::npos);
    auto queues = jobs.kftrain({"queues", "--local"});
    CHECK(queues.out.find("team-a  -             1        0          1         True") !=
          std::string::npos);
    // Held back for as long as the first runs: wait gives up (exit 5) without admission.
    CHECK(
        jobs.kftrain({"wait", "second", "--local", "--for", "admitted", "--timeout", "1s"}).code ==
        5);

    kftrain::test::write_file(hold, "go\n");
    auto done_first = jobs.wait_finished("first");
    auto done_second = jobs.wait_finished("second");
    CHECK(done_first.phase == job::JobPhase::Succeeded);
    CHECK(done_second.phase == job::JobPhase::Succeeded);
    CHECK(done_second.started >= done_first.finished);  // RFC 3339 UTC sorts as text
    REQUIRE(done_second.queue.has_value());
    CHECK(done_second.queue->state == job::QueueState::Finished);
    // Its replicas met at the port the supervisor took when the turn came.
    auto state = kftrain::backend::local::read_job_state("second");
    REQUIRE(state);
    std::ifstream env(jobs.dir() + "/rank-1.env");
    std::string text((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
    CHECK(text.find("MASTER_PORT=" + std::to_string(state->master_port) + "\n") !=
          std::string::npos);
}

TEST_CASE("a waiting job suspended leaves its local queue and goes to its back on resume",
          "[local][queue][cli]") {
    LocalJobs jobs;
    const std::string hold = jobs.dir() + "/hold";
    for (const char* name : {"head", "middle"}) {
        REQUIRE(jobs.kftrain({"submit", "-f", jobs.job_file(name, 1, {"--hold-file", hold}),
                              "--local", "--queue", "team-a"})
                    .code == 0);
    }
    auto tail = jobs.job_file("tail", 1, {"--hold-file", hold}, "kind: TrainJob\n");
    REQUIRE(jobs.kftrain({"submit", "-f", tail, "--local", "--queue", "team-a"}).code == 0);

    auto suspended = jobs.kftrain({"suspend", "middle", "--local", "--interval", "50ms"});
    CHECK(suspended.err == "");
    REQUIRE(suspended.code == 0);
    auto middle = jobs.backend().status("middle");
    REQUIRE(middle);
    CHECK(middle->phase == job::JobPhase::Suspended);
    for (const auto& replica : middle->replicas) {
        CHECK(replica.state == "Terminated");  // never started, and will not until resumed
    }
    auto moved_up = jobs.backend().status("tail");
    REQUIRE(moved_up);
    CHECK(moved_up->kind == "TrainJob");
    CHECK(moved_up->queue->position == 1);

    REQUIRE(jobs.kftrain({"resume", "middle", "--local", "--interval", "50ms"}).code == 0);
    auto back = jobs.wait_for(
        "middle", [](const job::JobStatus& s) { return s.queue && s.queue->position.has_value(); });
    CHECK(back.queue->position == 2);
    CHECK(back.queue->pending_in_queue == 2);
}

TEST_CASE("a job whose supervisor was killed holds its local queue until its replicas end",
          "[local][queue][cli]") {
    LocalJobs jobs;
    const std::string hold = jobs.dir() + "/hold";
    for (const char* name : {"first", "second"}) {
        REQUIRE(jobs.kftrain({"submit", "-f", jobs.job_file(name, 1, {"--hold-file", hold}),
                              "--local", "--queue", "team-a"})
                    .code == 0);
    }
    jobs.wait_for("first", [](const job::JobStatus& s) {
        return !s.replicas.empty() && s.replicas[0].pid != 0;
    });
    auto state = kftrain::backend::local::read_job_state("first");
    REQUIRE(state);
    REQUIRE(::kill(static_cast<pid_t>(state->supervisor_pid), SIGKILL) == 0);

    // first's replica still runs: second stays in line (wait gives up without admission).
    CHECK(
        jobs.kftrain({"wait", "second", "--local", "--for", "admitted", "--timeout", "3s"}).code ==
        5);
    auto waiting = jobs.backend().status("second");
    REQUIRE(waiting);
    REQUIRE(waiting->queue.has_value());
    CHECK(waiting->queue->state == job::QueueState::Pending);

    kftrain::test::write_file(hold, "go\n");  // first's replica ends; second's turn comes
    auto done_second = jobs.wait_finished("second");
    CHECK(done_second.phase == job::JobPhase::Succeeded);
}
