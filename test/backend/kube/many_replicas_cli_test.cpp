// A job of many replicas against the fake cluster: the kubectl calls its reads make, and the
// summaries that replace a row per replica.

#include <algorithm>
#include <catch2/catch.hpp>

#include "support/fake_cluster.h"

using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

// The `logs` calls among a run's kubectl calls.
std::vector<std::vector<std::string>> log_calls(const FakeCluster& cluster) {
    std::vector<std::vector<std::string>> reads;
    for (const auto& call : cluster.calls()) {
        if (call.at(0) == "logs") {
            reads.push_back(call);
        }
    }
    return reads;
}

size_t count_of(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
        ++count;
    }
    return count;
}

}  // namespace

TEST_CASE("logs --tail of 1 master and 600 workers takes four kubectl calls, in replica order",
          "[cluster][cli][logs][scale]") {
    auto cluster = FakeCluster::many_replicas(600);
    auto run = cluster.run({"logs", "big", "-n", "ml-training", "--tail", "2"});
    REQUIRE(run.code == 0);
    CHECK(run.err == "");
    // The master alone, the workers in batches of 256, 256 and 88.
    CHECK(log_calls(cluster).size() == 4);
    CHECK(count_of(run.out, "\n") == 1202);
    CHECK(contains(run.out, "worker-0 | big-worker-0 line 3\nworker-1 | big-worker-1 line 2\n"));
    CHECK(contains(run.out, "worker-599 | big-worker-599 line 3\n"));
    CHECK_FALSE(contains(run.out, "line 1\n"));
}

TEST_CASE("logs of many replicas without --tail prints the last 100 lines of each, and says so",
          "[cluster][cli][logs][scale]") {
    auto cluster = FakeCluster::many_replicas(39);
    auto run = cluster.run({"logs", "big", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(run.err ==
          "kftrain: big: 40 replicas: printing the last 100 lines of each (--tail N for another "
          "count, --all for every line, --replica to choose)\n");
    for (const auto& call : log_calls(cluster)) {
        CHECK(std::find(call.begin(), call.end(), "--tail=100") != call.end());
    }
    auto all = cluster.run({"logs", "big", "-n", "ml-training", "--all"});
    CHECK(all.err == "");
    CHECK(count_of(all.out, "\n") == 120);
    // A replica named is read as it always was: every line, one pod.
    auto one = cluster.run({"logs", "big", "-n", "ml-training", "--replica", "worker-17"});
    CHECK(one.err == "");
    CHECK(one.out ==
          "worker-17 | big-worker-17 line 1\nworker-17 | big-worker-17 line 2\n"
          "worker-17 | big-worker-17 line 3\n");
}

TEST_CASE("logs of a large job with pods not started reads the started ones in batches",
          "[cluster][cli][logs][scale]") {
    auto cluster = FakeCluster::many_replicas(40, {}, {}, {3, 30});
    auto run = cluster.run({"logs", "big", "-n", "ml-training", "--tail", "1"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.err,
                   "kftrain: worker-3: has not started yet (Pending: Unschedulable); "
                   "no logs yet\n"));
    CHECK(log_calls(cluster).size() == 2);
    CHECK(count_of(run.out, "\n") == 39);
}

TEST_CASE("status of many replicas counts them and lists those not well, and --all lists each",
          "[cluster][cli][status][scale]") {
    auto cluster = FakeCluster::many_replicas(39, {17}, {5}, {30});
    auto run = cluster.run({"status", "big", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    INFO(run.out);
    CHECK(contains(run.out,
                   "TYPE    REPLICAS  PENDING  RUNNING  RESTARTING  FAILED  RESTARTS\n"
                   "Master  1         0        1        0           0       0\n"
                   "Worker  39        1        36       1           1       3\n"));
    CHECK(contains(run.out,
                   "Not well: 3 of 40 replicas (--all for a row each):\n"
                   "REPLICA    STATE       RESTARTS  REASON\n"
                   "worker-5   Restarting  3         CrashLoopBackOff\n"
                   "worker-17  Failed      0         Error\n"
                   "worker-30  Pending     0         Unschedulable\n"));
    CHECK(contains(run.out,
                   "First failure: worker-5: exit code 137 (OOMKilled), 2024-05-01T10:04:00Z"));
    CHECK_FALSE(contains(run.out, "worker-2 "));
    auto all = cluster.run({"status", "big", "-n", "ml-training", "--all"});
    CHECK(contains(all.out, "\nworker-38  Running"));
    CHECK_FALSE(contains(all.out, "Not well"));
    auto wide = cluster.run({"status", "big", "-n", "ml-training", "-o", "wide"});
    CHECK(contains(wide.out, "big-worker-38"));
    auto described = cluster.run({"describe", "big", "-n", "ml-training"});
    CHECK(contains(described.out, "Not well: 3 of 40 replicas"));
    auto described_all = cluster.run({"describe", "big", "-n", "ml-training", "--all"});
    CHECK(contains(described_all.out, "big-worker-38"));
}

TEST_CASE("status of a large job that is well says so in a line", "[cluster][cli][status][scale]") {
    auto cluster = FakeCluster::many_replicas(20);
    auto run = cluster.run({"status", "big", "-n", "ml-training"});
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "All 21 replicas are well (--all for a row each).\n"));
}

TEST_CASE("diagnose of 1 master and 300 workers reads their logs in a few kubectl calls",
          "[cluster][cli][diagnose][scale]") {
    auto cluster = FakeCluster::many_replicas(300, {17});
    auto run = cluster.run({"diagnose", "big", "-n", "ml-training"});
    INFO(run.out << run.err);
    CHECK(run.code != 2);
    CHECK(contains(run.out, "worker-17"));
    // status's progress read of the master; the master; two batches of workers (worker-17 is
    // not read apart: it never restarted).
    CHECK(log_calls(cluster).size() == 4);
}

TEST_CASE("logs -f of many replicas follows the lead and those that failed or restart, and says so",
          "[cluster][cli][logs][scale]") {
    auto cluster = FakeCluster::many_replicas(39, {17}, {5}, {}, true);
    auto run = cluster.run({"logs", "big", "-n", "ml-training", "-f", "--poll-interval", "100ms"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    CHECK(contains(run.err,
                   "kftrain: big: 40 replicas: following master-0 and any replica that "
                   "fails or restarts (--replica NAME to follow another, --all for every "
                   "one)\n"));
    std::vector<std::string> followed;
    for (const auto& call : cluster.follow_calls("")) {
        followed.push_back(call.at(1));
    }
    std::sort(followed.begin(), followed.end());
    CHECK(followed == std::vector<std::string>{"big-master-0", "big-worker-17", "big-worker-5"});
    CHECK(contains(run.out, "worker-17 | big-worker-17 line 3\n"));
    CHECK_FALSE(contains(run.out, "worker-2 |"));
    // --all follows every one, as before.
    auto every = FakeCluster::many_replicas(39, {}, {}, {}, true);
    auto all =
        every.run({"logs", "big", "-n", "ml-training", "-f", "--all", "--poll-interval", "100ms"});
    REQUIRE(all.code == 0);
    CHECK(every.follow_calls("").size() == 40);
}
