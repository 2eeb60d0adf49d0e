// The records of finished cluster jobs through the built kftrain and the fake kubectl: kept the
// first time a verb sees the job finished, answered from once the job is gone.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/test_data.h"

namespace kftrain::test {
namespace {

constexpr const char* k_gone_note =
    "kftrain: note: job mnist-ddp no longer exists on the cluster; this is its record of ";

// Where the fake's failed mnist-ddp is recorded: the fake's context is "fake".
std::string failed_mnist_record_path(const FakeCluster& cluster) {
    return cluster.state_dir() + "/kftrain/history/fake/ml-training/mnist-ddp." + k_mnist_ddp_uid +
           ".jsonl";
}

// A cluster where mnist-ddp is gone (a ttlSecondsAfterFinished), sharing recorded's records.
FakeCluster gone_cluster(const FakeCluster& recorded) {
    FakeCluster gone("not-found");
    gone.use_state_dir(recorded.state_dir());
    return gone;
}

// A failed mnist-ddp that is another job of that name: another uid, finished later, and its
// master printed "second run".
std::string second_mnist_scenario() {
    const std::string dir = make_temp_dir();
    auto job = nlohmann::json::parse(read_test_data("kube/job-v19-failed.json"));
    job["metadata"]["uid"] = "0f0f0f0f-1111-2222-3333-444444444444";
    job["status"]["completionTime"] = "2030-01-01T00:00:00Z";
    write_file(dir + "/job-second.json", job.dump());
    nlohmann::json scenario = {
        {"states", {{{"job", "job-second.json"}, {"pods", "pods-v19-failed.json"}}}},
        {"logs", {{"mnist-ddp-master-0", {"second run"}}}}};
    write_file(dir + "/second.json", scenario.dump());
    return dir + "/second.json";
}

}  // namespace

TEST_CASE("status of a finished job records it, and logs and diagnose read it once it is gone",
          "[history][cluster][cli]") {
    FakeCluster cluster("failed");
    CliRun status = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
    INFO(status.err);
    REQUIRE(status.code == 0);
    CHECK_FALSE(contains(status.err, "kftrain: note:"));
    REQUIRE(std::filesystem::exists(failed_mnist_record_path(cluster)));

    FakeCluster gone = gone_cluster(cluster);
    CliRun logs = gone.run({"logs", "mnist-ddp", "-n", "ml-training"});
    INFO(logs.err);
    REQUIRE(logs.code == 0);
    CHECK(contains(logs.err, k_gone_note));
    CHECK(contains(logs.out, "Loading MNIST from /data/mnist"));
    CHECK(contains(logs.out, "worker 0 ready"));
    CHECK(contains(logs.out, "worker 1 ready"));

    CliRun live = cluster.run({"diagnose", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    CliRun past = gone.run({"diagnose", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    INFO(past.err);
    REQUIRE(past.code == 0);
    CHECK(contains(past.err, k_gone_note));
    auto was = nlohmann::json::parse(live.out);
    auto is = nlohmann::json::parse(past.out);
    CHECK(is["cause"] == "out-of-memory");
    CHECK(is["cause"] == was["cause"]);
    CHECK(is["replica"] == was["replica"]);
    CHECK(was["recorded"].is_null());
    CHECK(is["recorded"].is_string());

    CliRun json = gone.run({"status", "mnist-ddp", "-n", "ml-training", "-o", "json"});
    REQUIRE(json.code == 0);
    auto doc = nlohmann::json::parse(json.out);
    CHECK(doc["state"] == "Failed");
    CHECK(doc["recorded"].is_string());
}

TEST_CASE("a job neither on the cluster nor in history is not found", "[history][cluster][cli]") {
    FakeCluster cluster("not-found");
    CliRun run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
    CHECK(run.code == 3);
    CHECK_FALSE(contains(run.err, "kftrain: note:"));
    run = cluster.run({"logs", "mnist-ddp", "-n", "ml-training", "--from-history"});
    CHECK(run.code == 3);
    CHECK(contains(run.err,
                   "kftrain: error: no record of job mnist-ddp in history (kftrain "
                   "history lists them)\n"));
}

TEST_CASE("status and describe --from-history answer from the record while the job still lives",
          "[history][cluster][cli]") {
    FakeCluster cluster("failed");
    REQUIRE(cluster.run({"archive", "mnist-ddp", "-n", "ml-training"}).code == 0);
    CliRun run =
        cluster.run({"status", "mnist-ddp", "-n", "ml-training", "--from-history", "-o", "json"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    CHECK(contains(run.err, "kftrain: note: job mnist-ddp: this is its record of "));
    CHECK(nlohmann::json::parse(run.out)["recorded"].is_string());
    run = cluster.run({"describe", "mnist-ddp", "-n", "ml-training", "--from-history"});
    CHECK(run.code == 0);
    CHECK(contains(run.out, "mnist-ddp"));
}

TEST_CASE("archive records a finished job once, refuses a running one and a local one",
          "[history][cluster][cli]") {
    FakeCluster cluster("failed");
    CliRun first = cluster.run({"archive", "mnist-ddp", "-n", "ml-training"});
    INFO(first.err);
    REQUIRE(first.code == 0);
    CHECK(first.out == failed_mnist_record_path(cluster) + "\n");
    CliRun again = cluster.run({"archive", "mnist-ddp", "-n", "ml-training"});
    CHECK(again.code == 0);
    CHECK(again.out == "already recorded: " + failed_mnist_record_path(cluster) + "\n");

    FakeCluster running("running");
    CliRun unfinished = running.run({"archive", "mnist-ddp", "-n", "ml-training"});
    CHECK(unfinished.code == 1);
    CHECK(contains(unfinished.err, "kftrain: error: mnist-ddp has not finished (Running)"));

    CliRun local = running.run({"archive", "mnist-ddp", "--local"});
    CHECK(local.code == 2);
    CHECK(contains(local.err, "--local: local jobs keep their state in "));
}

TEST_CASE("of two records of one name, the newest answers", "[history][cluster][cli]") {
    FakeCluster first("failed");
    REQUIRE(first.run({"status", "mnist-ddp", "-n", "ml-training"}).code == 0);
    FakeCluster second(second_mnist_scenario());
    second.use_state_dir(first.state_dir());
    CliRun status = second.run({"status", "mnist-ddp", "-n", "ml-training"});
    INFO(status.err);
    REQUIRE(status.code == 0);

    FakeCluster gone = gone_cluster(first);
    CliRun logs = gone.run({"logs", "mnist-ddp", "-n", "ml-training", "--replica", "master"});
    INFO(logs.err);
    REQUIRE(logs.code == 0);
    CHECK(contains(logs.out, "second run"));
    CHECK_FALSE(contains(logs.out, "Loading MNIST"));
}

TEST_CASE("submit stamps the kubeconfig user as a label, and none without one",
          "[history][cluster][cli]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/user.json", R"({"user": "oidc:alice@example.com"})");
    FakeCluster cluster(dir + "/user.json");
    CliRun run = cluster.run({"submit", "-f", k_example_job});
    INFO(run.err);
    REQUIRE(run.code == 0);
    REQUIRE(cluster.applied().size() == 1);
    CHECK(contains(cluster.applied().back(), "kftrain.io/submitted-by: oidc-alice-example.com"));

    CHECK_FALSE(contains(cluster.applied().back(), "kftrain.io/estimated-cost"));

    FakeCluster nobody("submit-succeeds");
    REQUIRE(nobody.run({"submit", "-f", k_example_job}).code == 0);
    CHECK_FALSE(contains(nobody.applied().back(), "kftrain.io/submitted-by"));
}

TEST_CASE("submit --max-cost stamps its estimate on the cluster job", "[history][cluster][cli]") {
    const std::string estimate = std::string(test_data_dir()) + "/estimate/";
    FakeCluster cluster("submit-succeeds");
    CliRun run = cluster.run({"submit", "-f", estimate + "cpu-job.yaml", "--profile",
                              estimate + "profile.json", "--max-cost", "5"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    REQUIRE(cluster.applied().size() == 1);
    // 4 replicas for 1m43s at $0.0802 per replica-hour (estimate_test's figures).
    const std::string applied = cluster.applied().back();
    CHECK((contains(applied, "kftrain.io/estimated-cost: \"0.0091\"\n") ||
           contains(applied, "kftrain.io/estimated-cost: '0.0091'\n")));
}

TEST_CASE("logs --since of a gone job keeps the recorded lines of that last while",
          "[history][cluster][cli]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/job.json", read_test_data("kube/job-v19-failed.json"));
    write_file(dir + "/pods.json", read_test_data("kube/pods-v19-failed.json"));
    nlohmann::json aged = {{{"text", "two hours ago"}, {"age_s", 7200}},
                           {{"text", "a minute ago"}, {"age_s", 60}}};
    nlohmann::json scenario = {{"states", {{{"job", "job.json"}, {"pods", "pods.json"}}}},
                               {"logs", {{"mnist-ddp-master-0", aged}}}};
    write_file(dir + "/aged.json", scenario.dump());
    FakeCluster cluster(dir + "/aged.json");
    REQUIRE(cluster.run({"status", "mnist-ddp", "-n", "ml-training"}).code == 0);

    FakeCluster gone = gone_cluster(cluster);
    CliRun all = gone.run({"logs", "mnist-ddp", "-n", "ml-training", "--replica", "master"});
    INFO(all.err);
    CHECK(contains(all.out, "two hours ago"));
    CliRun recent = gone.run(
        {"logs", "mnist-ddp", "-n", "ml-training", "--replica", "master", "--since", "1h"});
    INFO(recent.err);
    REQUIRE(recent.code == 0);
    CHECK(contains(recent.out, "a minute ago"));
    CHECK_FALSE(contains(recent.out, "two hours ago"));
}

}  // namespace kftrain::test
