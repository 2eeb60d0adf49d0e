// submit warns of a job whose memory limit is under the peak estimate --measure saw its program
// reach (and of requests far over what it used), on a cluster and here, and submits it anyway.
#include <catch2/catch.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/jobs.h"

namespace kftrain::test {
namespace {

constexpr const char* k_small_job =
    "name: small\nreplicas: 2\nresources: {cpu: 200m, memory: 64Mi}\n";

struct SizedJob {
    std::string dir = make_temp_dir();
    std::string state = dir + "/state";
    std::string file = dir + "/job.yaml";
    SizedJob() { write_file(file, k_small_job); }
};

}  // namespace

TEST_CASE("submit warns that a job will be OOMKilled at its limit, and submits it",
          "[cli][submit][sizing]") {
    SizedJob job;
    FakeCluster cluster("quota-team");  // a quota the job fits: nothing else to say
    auto env = cluster.env();
    env["XDG_STATE_HOME"] = job.state;
    auto quiet = run_kftrain({"submit", "-f", job.file, "-n", "team-a"}, env);
    CHECK(quiet.code == 0);
    CHECK(quiet.err.empty());  // never measured
    const std::string profile = save_measured_use(job.state, load_job(k_small_job), 312, false);
    auto run = run_kftrain({"submit", "-f", job.file, "-n", "team-a"}, env);
    CHECK(run.code == 0);
    CHECK(run.out == "pytorchjob/small submitted\n");
    CHECK(run.err ==
          "kftrain: warning: will be OOMKilled: peak 312Mi measured at 2 replicas > limit 64Mi; "
          "ask for 375Mi (resources.memory); measured 2026-12-06 (" +
              profile + ")\n");
    CHECK(cluster.applied().size() == 2);
}

TEST_CASE("submit --local warns of the measured peak too", "[cli][submit][sizing]") {
    SizedJob job;
    const std::string profile = save_measured_use(job.state, load_job(k_small_job), 312, false);
    auto run = run_kftrain({"submit", "--local", "-f", job.file, "--dry-run"},
                           {{"XDG_STATE_HOME", job.state}});
    CHECK(run.code == 0);
    CHECK(contains(run.out, "kind: PyTorchJob"));
    CHECK(run.err ==
          "kftrain: warning: will be OOMKilled: peak 312Mi measured at 2 replicas > limit 64Mi; "
          "ask for 375Mi (resources.memory); measured 2026-12-06 (" +
              profile + ")\n");
}

}  // namespace kftrain::test
