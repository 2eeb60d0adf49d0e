// What diagnose says of a replica out of memory: its limit, the peak estimate --measure saw, and
// what to ask for; nothing of the kind for a GPU's memory.
#include "diagnose/memory_fix.h"

#include <catch2/catch.hpp>

#include "diagnose/diagnosis.h"

namespace kftrain::diagnose {
namespace {

constexpr double k_mib = 1024.0 * 1024;

ReplicaEvidence oom_killed(std::optional<double> limit_mib) {
    ReplicaEvidence r;
    r.name = "master-0";
    r.state = "Failed";
    r.reason = "OOMKilled";
    r.exit_code = 137;
    r.finished = "2026-12-06T10:00:00Z";
    r.memory_limited = limit_mib.has_value();
    if (limit_mib) {
        r.memory_limit_bytes = *limit_mib * k_mib;
    }
    return r;
}

MeasuredMemory measured(double peak_mib, double recommended_mib) {
    return {peak_mib * k_mib, 2, recommended_mib * k_mib, "2026-12-06T09:12:00Z",
            "/state/kftrain/profiles/mnist.cluster.json"};
}

JobEvidence failed_job(ReplicaEvidence replica, std::optional<MeasuredMemory> seen) {
    JobEvidence job;
    job.name = "mnist";
    job.kind = "PyTorchJob";
    job.phase = "Failed";
    job.replicas = {std::move(replica)};
    job.measured = seen;
    return job;
}

}  // namespace

TEST_CASE("diagnose names an OOMKilled replica's limit and the measured peak, with the fix",
          "[diagnose][memory]") {
    const Diagnosis d = diagnose_job(failed_job(oom_killed(128), measured(312, 375)));
    CHECK(d.cause == Cause::OutOfMemory);
    REQUIRE(d.memory);
    CHECK(d.memory->replica == "master-0");
    CHECK(d.memory->limit_bytes == 128 * k_mib);
    CHECK(d.memory->limit_enforced);
    REQUIRE(d.memory->measured);
    CHECK(d.memory->measured->peak_bytes == 312 * k_mib);
    CHECK(d.hint ==
          "master-0 was OOMKilled at its 128Mi limit; kftrain estimate --measure saw a peak of "
          "312Mi (2026-12-06): set resources.memory to 375Mi");
}

TEST_CASE("diagnose of an OOMKilled replica never measured says to measure it",
          "[diagnose][memory]") {
    const Diagnosis d = diagnose_job(failed_job(oom_killed(128), std::nullopt));
    REQUIRE(d.memory);
    CHECK_FALSE(d.memory->measured);
    CHECK(d.hint ==
          "master-0 was OOMKilled at its 128Mi limit; measure what it needs with kftrain "
          "estimate --measure, then give it that (resources.memory), or lower the batch size");
    // No limit at all: the node ran short.
    const Diagnosis unlimited = diagnose_job(failed_job(oom_killed(std::nullopt), std::nullopt));
    REQUIRE(unlimited.memory);
    CHECK_THAT(unlimited.hint, Catch::StartsWith("master-0 was OOMKilled with no memory limit "
                                                 "set (its node ran short); measure"));
}

TEST_CASE("a measured peak under the limit it was killed at says this run needed more",
          "[diagnose][memory]") {
    const Diagnosis d = diagnose_job(failed_job(oom_killed(512), measured(300, 360)));
    REQUIRE(d.memory);
    CHECK(d.hint ==
          "master-0 was OOMKilled at its 512Mi limit; kftrain estimate --measure saw a peak of "
          "only 300Mi (2026-12-06), well under that limit: this run needed more than the one "
          "measured (a larger batch, more data, a leak?); measure it again as it runs now, or "
          "lower the batch size");
}

TEST_CASE("a local replica's MemoryError names the job file's limit as not enforced here",
          "[diagnose][memory]") {
    ReplicaEvidence r;
    r.name = "worker-0";
    r.state = "Failed";
    r.exit_code = 1;
    r.finished = "2026-12-06T10:00:00Z";
    r.memory_limit_bytes = 256 * k_mib;  // the job file's: nothing enforces it here
    r.lines = {{r.finished, "Traceback (most recent call last):"}, {r.finished, "MemoryError"}};
    const Diagnosis d = diagnose_job(failed_job(r, measured(400, 480)));
    REQUIRE(d.memory);
    CHECK_FALSE(d.memory->limit_enforced);
    CHECK(d.hint ==
          "worker-0 ran out of memory; its limit is 256Mi (a cluster enforces it, this machine "
          "does not); kftrain estimate --measure saw a peak of 400Mi (2026-12-06): set "
          "resources.memory to 480Mi");
}

TEST_CASE("a GPU out of memory gets no memory limit advice", "[diagnose][memory]") {
    ReplicaEvidence r = oom_killed(128);
    r.reason = "Error";
    r.exit_code = 1;
    r.lines = {{r.finished, "Traceback (most recent call last):"},
               {r.finished, "torch.cuda.OutOfMemoryError: CUDA out of memory."}};
    const Diagnosis d = diagnose_job(failed_job(r, measured(312, 375)));
    CHECK(d.cause == Cause::OutOfMemory);
    CHECK_FALSE(d.memory);
    CHECK_THAT(d.hint, Catch::StartsWith("give the replicas more memory"));
}

}  // namespace kftrain::diagnose
