#include "diagnose/diagnosis.h"

#include <catch2/catch.hpp>

namespace kftrain::diagnose {
namespace {

ReplicaEvidence replica(const std::string& name, const std::string& state, std::optional<int> code,
                        const std::string& finished, std::vector<std::string> lines = {}) {
    ReplicaEvidence r;
    r.name = name;
    r.state = state;
    r.exit_code = code;
    r.finished = finished;
    for (const auto& line : lines) {
        r.lines.push_back({finished, line});
    }
    return r;
}

JobEvidence failed_job(std::vector<ReplicaEvidence> replicas) {
    JobEvidence job;
    job.name = "mnist";
    job.kind = "PyTorchJob";
    job.phase = "Failed";
    job.reason = "PyTorchJobFailed";
    job.replicas = std::move(replicas);
    return job;
}

}  // namespace

TEST_CASE("diagnose names the first failure's cause from its last lines", "[diagnose]") {
    struct Case {
        std::vector<std::string> lines;
        Cause cause;
        const char* detail;
    };
    const Case cases[] = {
        {{"Traceback (most recent call last):", "  File \"t.py\", line 3", "ValueError: bad"},
         Cause::Exception,
         "ValueError: bad"},
        {{"Traceback (most recent call last):",
          "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"},
         Cause::OutOfMemory,
         "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"},
        {{"Traceback (most recent call last):", "MemoryError"}, Cause::OutOfMemory, "MemoryError"},
        {{"Traceback (most recent call last):",
          "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 "
          "clients joined."},
         Cause::Rendezvous,
         "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 "
         "clients joined."},
        {{"error: cannot connect to mnist-master-0:23456 as rank 1 of 2 within 60s: refused"},
         Cause::Rendezvous,
         "error: cannot connect to mnist-master-0:23456 as rank 1 of 2 within 60s: refused"},
        {{"Traceback (most recent call last):",
          "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, "
          "unhandled system error"},
         Cause::Nccl,
         "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, "
         "unhandled system error"},
        {{R"j({"event":"error","rank":0,"world_size":2,"time":"t","message":"loss is not finite (nan) for the last 3 step(s)"})j"},
         Cause::Divergence,
         "loss is not finite (nan) for the last 3 step(s)"},
        {{R"j({"event":"error","rank":0,"world_size":2,"time":"t","message":"no such file: /data/x"})j"},
         Cause::Exception,
         "no such file: /data/x"},
        {{"terminate called after throwing an instance of 'c10::Error'"},
         Cause::Exception,
         "terminate called after throwing an instance of 'c10::Error'"},
        {{"step 10", "just stopped"}, Cause::Unknown, "exit code 1"},
    };
    for (const Case& c : cases) {
        INFO(c.lines.back());
        Diagnosis d = diagnose_job(
            failed_job({replica("master-0", "Failed", 1, "2026-01-01T00:00:01Z", c.lines)}));
        CHECK(d.verdict == "failed");
        CHECK(d.cause == c.cause);
        CHECK(d.replica == "master-0");
        REQUIRE_FALSE(d.timeline.empty());
        CHECK(d.timeline[0].detail == c.detail);
    }
}

TEST_CASE("diagnose: a replica that lost its peer is a consequence, never the cause",
          "[diagnose]") {
    // The master noticed first (same second), yet the worker's exception is the cause.
    JobEvidence job = failed_job({
        replica("master-0", "Failed", 1, "2026-01-01T00:00:05Z",
                {"Traceback (most recent call last):",
                 "RuntimeError: [pair.cc:598] Connection closed by peer [10.0.0.2]:3491"}),
        replica("worker-0", "Failed", 1, "2026-01-01T00:00:05Z",
                {"Traceback (most recent call last):", "KeyError: 'label'"}),
        replica("worker-1", "Failed", 1, "2026-01-01T00:00:04Z",
                {"Traceback (most recent call last):", "RuntimeError: Connection reset by peer"}),
    });
    Diagnosis d = diagnose_job(job);
    CHECK(d.replica == "worker-0");
    CHECK(d.cause == Cause::Exception);
    CHECK(d.consequences == std::vector<std::string>{"worker-1", "master-0"});
    CHECK(d.why ==
          "worker-0 failed first (exit code 1): an exception in the program: KeyError: 'label'; "
          "then worker-1, master-0 lost their peer");
    CHECK(d.timeline[0].name == "worker-1");  // the time axis, as it happened
    CHECK(d.timeline[1].name == "worker-0");
    CHECK(d.timeline[1].first);
}

TEST_CASE("diagnose reads a pod's own reasons before its lines", "[diagnose]") {
    ReplicaEvidence oom = replica("worker-0", "Failed", 137, "2026-01-01T00:00:01Z");
    oom.reason = "OOMKilled";
    ReplicaEvidence limit = replica("worker-0", "Failed", 137, "2026-01-01T00:00:01Z");
    limit.memory_limited = true;
    ReplicaEvidence killed = replica("worker-0", "Failed", 137, "2026-01-01T00:00:01Z");
    ReplicaEvidence evicted = replica("worker-0", "Failed", 137, "2026-01-01T00:00:01Z");
    evicted.reason = "Evicted";
    evicted.message = "The node was low on resource: memory. ";
    ReplicaEvidence looping = replica("worker-0", "Restarting", 1, "2026-01-01T00:00:01Z",
                                      {"Traceback (most recent call last):", "ImportError: x"});
    looping.reason = "CrashLoopBackOff";
    looping.last_reason = "Error";
    looping.restarts = 5;
    // A real kubelet's OnFailure container killed for memory: waiting in CrashLoopBackOff, its
    // previous attempt OOMKilled, the back-off text its only message.
    ReplicaEvidence oom_looping = replica("worker-0", "Restarting", 137, "2026-01-01T00:00:01Z");
    oom_looping.reason = "CrashLoopBackOff";
    oom_looping.last_reason = "OOMKilled";
    oom_looping.message = "back-off 1m20s restarting failed container=pytorch pod=w_ns(uid)";
    oom_looping.restarts = 3;
    struct Case {
        ReplicaEvidence replica;
        Cause cause;
        const char* why;
    };
    const Case cases[] = {
        {oom, Cause::OutOfMemory,
         "worker-0 failed first (killed by SIGKILL): out of memory: OOMKilled"},
        {limit, Cause::OutOfMemory,
         "worker-0 failed first (killed by SIGKILL): out of memory: exit code 137 (SIGKILL) "
         "under a memory limit"},
        {killed, Cause::Signal, "worker-0 failed first (killed by SIGKILL): killed by a signal"},
        {evicted, Cause::Evicted,
         "worker-0 failed first (killed by SIGKILL): the pod was evicted: The node was low on "
         "resource: memory."},
        {looping, Cause::Exception,
         "crash loop: each of worker-0's 6 attempts failed, the last with ImportError: x"},
        {oom_looping, Cause::OutOfMemory,
         "crash loop: each of worker-0's 4 attempts failed, the last with OOMKilled on its "
         "previous attempt, now CrashLoopBackOff"},
    };
    for (const Case& c : cases) {
        INFO(c.why);
        Diagnosis d = diagnose_job(failed_job({c.replica}));
        CHECK(d.cause == c.cause);
        CHECK(d.why == c.why);
        CHECK_FALSE(d.hint.empty());
    }
}

TEST_CASE("diagnose says why a job cannot start, and what its queue says", "[diagnose]") {
    JobEvidence job;
    job.phase = "Created";
    ReplicaEvidence pending = replica("master-0", "Pending", std::nullopt, "");
    pending.reason = "Unschedulable";
    pending.message = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";
    job.replicas = {pending};
    Diagnosis d = diagnose_job(job);
    CHECK(d.verdict == "pending");
    CHECK(d.cause == Cause::Unschedulable);
    CHECK(d.why ==
          "master-0 cannot start: no node can run the pod: 0/3 nodes are available: 3 "
          "Insufficient nvidia.com/gpu.");
    job.replicas[0].reason = "ImagePullBackOff";
    job.replicas[0].message = "Back-off pulling image \"x:1\"";
    CHECK(diagnose_job(job).cause == Cause::ImagePull);

    JobEvidence queued;
    queued.phase = "Suspended";
    queued.queue_state = "pending";
    queued.queue_message = "insufficient unused quota for cpu in flavor default, 4 more needed";
    CHECK(diagnose_job(queued).why ==
          "waiting in its Kueue queue: insufficient unused quota for cpu in flavor default, 4 "
          "more needed");
    queued.queue_state = "evicted";
    CHECK(diagnose_job(queued).cause == Cause::QueueEvicted);

    JobEvidence deadline = failed_job({});
    deadline.reason = "DeadlineExceeded";
    deadline.message = "TrainJob exceeded its active deadline";
    CHECK(diagnose_job(deadline).why ==
          "the active deadline ran out: TrainJob exceeded its active deadline");
}

TEST_CASE("diagnose calls a quiet running job stuck, with what each replica printed last",
          "[diagnose]") {
    JobEvidence job;
    job.phase = "Running";
    job.replicas = {replica("master-0", "Running", std::nullopt, "", {"epoch 1 step 10"}),
                    replica("worker-0", "Running", std::nullopt, "", {"loading shard 7"})};
    job.idle_seconds = 900;
    job.stuck_after_seconds = 600;
    Diagnosis d = diagnose_job(job);
    CHECK(d.verdict == "stuck");
    CHECK(d.why == "running, but no progress report or log line for 15m0s");
    REQUIRE(d.evidence.size() == 2);
    CHECK(d.evidence[1].text == "worker-0 | loading shard 7");
    job.idle_seconds = 30;
    CHECK(diagnose_job(job).verdict == "running");
    CHECK(diagnose_job(job).why == "no problem found");
}

TEST_CASE("diagnose quotes a program's megabyte line cut to a readable length", "[diagnose]") {
    const std::string huge = std::string(3000000, 'E') + "Error: x";
    Diagnosis d = diagnose_job(failed_job({replica("master-0", "Failed", 3, "2026-01-01T00:00:01Z",
                                                   {"Traceback (most recent call last):", huge})}));
    CHECK(d.cause == Cause::Exception);
    CHECK(d.timeline[0].detail.size() == 400);
    CHECK(d.timeline[0].detail.substr(397) == "...");
    CHECK(d.why.size() < 500);
    CHECK(d.evidence.back().text.size() == 2000);
}

TEST_CASE("a rank more than 20% slower than the median is a straggler", "[diagnose]") {
    CHECK_FALSE(find_straggler({}));
    CHECK_FALSE(find_straggler({0.2}));
    CHECK_FALSE(find_straggler({0.20, 0.21, 0.23}));  // 15% slower: within the normal
    CHECK_FALSE(find_straggler({0.2, -1}));           // not a report to judge by
    auto s = find_straggler({0.20, 0.21, 0.41, 0.19});
    REQUIRE(s);
    CHECK(s->rank == 2);
    CHECK(s->median_s == Approx(0.205));
    CHECK(describe_straggler(*s) == "rank 2 computes a step in 410ms, 2.0x the median 205ms");
    JobEvidence running;
    running.phase = "Running";
    running.rank_step_s = {0.1, 0.3};
    Diagnosis d = diagnose_job(running);
    CHECK(d.verdict == "running");
    REQUIRE(d.straggler);
    CHECK(d.why ==
          "no failure; a straggler holds the other ranks back: rank 1 computes a step "
          "in 300ms, 1.5x the median 200ms");
}

}  // namespace kftrain::diagnose

namespace kftrain::diagnose {

TEST_CASE("diagnose cuts a non-ASCII line on a character and masks what it quotes", "[diagnose]") {
    std::string accents;
    for (int i = 0; i < 300; ++i) {
        accents += "\xc3\xa9";
    }
    Diagnosis cut = diagnose_job(
        failed_job({replica("master-0", "Failed", 1, "2026-01-01T00:00:01Z",
                            {"Traceback (most recent call last):", "ValueError: " + accents})}));
    const std::string& detail = cut.timeline[0].detail;
    REQUIRE(detail.size() <= 400);
    REQUIRE(detail.size() > 3);
    // The byte before "..." ends a character: no half of an é for JSON to refuse.
    CHECK(static_cast<unsigned char>(detail[detail.size() - 4]) == 0xa9);

    Diagnosis masked = diagnose_job(failed_job(
        {replica("master-0", "Failed", 1, "2026-01-01T00:00:01Z",
                 {"connecting with HF_TOKEN=hf_abc", "Traceback (most recent call last):",
                  "RuntimeError: cannot reach http://bob:s3cret@db/x password=hunter2"})}));
    CHECK(masked.why ==
          "master-0 failed first (exit code 1): an exception in the program: RuntimeError: "
          "cannot reach http://***@db/x password=***");
    CHECK(masked.timeline[0].detail.find("s3cret") == std::string::npos);
    for (const auto& line : masked.evidence) {
        CHECK(line.text.find("hf_abc") == std::string::npos);
        CHECK(line.text.find("hunter2") == std::string::npos);
    }
}

TEST_CASE("diagnose: a peer's NCCL report of the same second is a consequence of the kill",
          "[diagnose]") {
    const std::string nccl =
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, remote "
        "process exited or there was a network error";
    Diagnosis d = diagnose_job(failed_job({
        replica("master-0", "Failed", 1, "2026-01-01T00:00:05Z",
                {"Traceback (most recent call last):", nccl}),
        replica("worker-0", "Failed", 137, "2026-01-01T00:00:05Z", {"epoch 1 step 40"}),
        replica("worker-1", "Failed", 1, "2026-01-01T00:00:05Z",
                {"Traceback (most recent call last):", nccl}),
    }));
    CHECK(d.replica == "worker-0");
    CHECK(d.cause == Cause::Signal);
    CHECK(d.consequences == std::vector<std::string>{"master-0", "worker-1"});
}

TEST_CASE("diagnose puts an end time it cannot read after those it can", "[diagnose]") {
    Diagnosis d = diagnose_job(failed_job({
        replica("master-0", "Failed", 1, "not a time", {"ValueError: late"}),
        replica("worker-0", "Failed", 1, "2026-01-01T00:00:05Z", {"KeyError: 'x'"}),
    }));
    CHECK(d.replica == "worker-0");
    CHECK(d.timeline[0].name == "worker-0");
}

TEST_CASE("diagnose reads a program's JSON lines of any shape without failing", "[diagnose]") {
    Diagnosis d = diagnose_job(failed_job({replica(
        "master-0", "Failed", 1, "2026-01-01T00:00:05Z",
        {R"({"event":3})", R"({"event":["error"]})", "{\"event\":" + std::string(100, '[') + "}",
         R"({"event":"error","message":"loss is NaN"})"})}));
    CHECK(d.replica == "master-0");
    CHECK_THAT(d.why, Catch::Contains("loss is NaN"));
}

TEST_CASE("diagnose calls the same failure in every attempt a crash loop, not one passing failure",
          "[diagnose]") {
    const std::vector<std::string> missing = {"Traceback (most recent call last):",
                                              "ModuleNotFoundError: No module named 'torch'"};
    // Failed twice, the same way both times (both attempts read): a crash loop.
    ReplicaEvidence twice = replica("master-0", "Failed", 1, "2026-01-01T00:00:05Z", missing);
    twice.restarts = 1;
    for (const auto& line : missing) {
        twice.previous_lines.push_back({"2026-01-01T00:00:01Z", line});
    }
    Diagnosis d = diagnose_job(failed_job({twice}));
    REQUIRE(d.crash_loop);
    CHECK(d.crash_loop->attempts == 2);
    CHECK(d.crash_loop->last_two_same);
    CHECK(d.cause == Cause::Exception);
    CHECK(d.why ==
          "crash loop: each of master-0's 2 attempts failed with ModuleNotFoundError: No module "
          "named 'torch'");
    CHECK(d.hint.find("retrying will not mend it") != std::string::npos);

    // Four attempts, the last two read alike.
    ReplicaEvidence four = twice;
    four.restarts = 3;
    d = diagnose_job(failed_job({four}));
    CHECK(d.why ==
          "crash loop: each of master-0's 4 attempts failed, the last 2 with ModuleNotFoundError: "
          "No module named 'torch'");

    // Failed once, for a passing reason: no crash loop.
    ReplicaEvidence once = replica("master-0", "Failed", 1, "2026-01-01T00:00:05Z", missing);
    d = diagnose_job(failed_job({once}));
    CHECK_FALSE(d.crash_loop);
    CHECK(d.why.rfind("master-0 failed first (exit code 1): ", 0) == 0);

    // Two attempts that failed differently: not the same failure, no crash loop.
    ReplicaEvidence different = twice;
    different.previous_lines = {{"2026-01-01T00:00:01Z", "RuntimeError: the store timed out"}};
    d = diagnose_job(failed_job({different}));
    CHECK_FALSE(d.crash_loop);
    CHECK(d.why.rfind("master-0 failed first (exit code 1, 1 restarts): ", 0) == 0);

    // Running again after one failure: one failed attempt, nothing looping yet.
    ReplicaEvidence recovered = replica("master-0", "Running", 1, "2026-01-01T00:00:05Z", missing);
    recovered.restarts = 1;
    JobEvidence running;
    running.phase = "Running";
    running.replicas = {recovered};
    d = diagnose_job(running);
    CHECK_FALSE(d.crash_loop);
}

}  // namespace kftrain::diagnose
