// A job's status, events and logs rebuilt from its record in history, by the readers a live
// job's go through: the recorded answers of test/data/kube.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "backend/kube/history/replay.h"
#include "job/exit_codes.h"
#include "support/fake_cluster.h"
#include "support/test_data.h"

namespace kftrain::test {
namespace {

// The record of the failed mnist-ddp: its object and pods as kubectl printed them, and the
// master's and worker-0's logs as kept (with kubectl's timestamps).
history::Record failed_mnist_record() {
    history::Record record;
    record.summary.name = "mnist-ddp";
    record.summary.recorded = "2024-05-01T11:00:00Z";
    record.job = nlohmann::json::parse(read_test_data("kube/job-v19-failed.json"));
    record.pods = nlohmann::json::parse(read_test_data("kube/pods-v19-failed.json"));
    record.events = {{"kind", "List"}, {"items", nlohmann::json::array()}};
    record.logs.push_back(
        {"master-0",
         false,
         {"2024-05-01T10:00:20.000Z Loading MNIST from /data/mnist",
          "2024-05-01T10:03:12.000Z {\"event\":\"progress\",\"rank\":0,\"world_size\":3,"
          "\"epoch\":2,\"epochs\":3,\"step\":120,\"steps_per_epoch\":469,\"loss\":0.31214}"},
         true});
    record.logs.push_back(
        {"worker-0", false, {"2024-05-01T10:00:21.000Z worker 0 ready", "worker 0 done"}, false});
    return record;
}

std::vector<job::LogLine> replayed_logs(const history::Record& record,
                                        const job::LogOptions& options, util::Status& done) {
    std::vector<job::LogLine> lines;
    done =
        backend::kube::record_logs(record, backend::kube::status_from_record(record), options,
                                   [&lines](const job::LogLine& line) { lines.push_back(line); });
    return lines;
}

}  // namespace

TEST_CASE("a record's status is the live job's, read from its object and pods, with its time",
          "[history][cluster]") {
    history::Record record = failed_mnist_record();
    record.job["metadata"]["labels"] = {{"kftrain.io/submitted-by", "alice"}};
    record.job["metadata"]["annotations"] = {{"kftrain.io/estimated-cost", "0.0091"}};
    const job::JobStatus status = backend::kube::status_from_record(record);
    CHECK(status.name == "mnist-ddp");
    CHECK(status.labels.at("kftrain.io/submitted-by") == "alice");
    CHECK(status.annotations.at("kftrain.io/estimated-cost") == "0.0091");
    CHECK(status.namespace_ == "ml-training");
    CHECK(status.uid == k_mnist_ddp_uid);
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.recorded == "2024-05-01T11:00:00Z");
    REQUIRE(status.replicas.size() == 3);
    CHECK(status.replicas[0].name == "master-0");
    CHECK(status.replicas[0].reason == "OOMKilled");
    // The lead's progress from its kept log, the time kubectl put before each line left off.
    REQUIRE(status.progress);
    CHECK(status.progress->epoch == 2);
}

TEST_CASE("a record's logs are its kept lines, by replica, tail and timestamps",
          "[history][cluster]") {
    const history::Record record = failed_mnist_record();
    util::Status done = util::ok_status();
    job::LogOptions options;
    options.replica = "worker-0";
    auto lines = replayed_logs(record, options, done);
    REQUIRE(done.ok());
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].text == "worker 0 ready");
    CHECK(lines[1].text == "worker 0 done");

    // The master's kept log was cut: a notice says so before its lines.
    options.replica = "master";
    options.timestamps = true;
    lines = replayed_logs(record, options, done);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].notice);
    CHECK(lines[0].text == "the record kept its last 2 lines: earlier ones were left out");
    CHECK(lines[1].text == "2024-05-01T10:00:20.000Z Loading MNIST from /data/mnist");

    options.replica = "worker-1";
    options.timestamps = false;
    options.tail = 1;
    lines = replayed_logs(record, options, done);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].notice);
    CHECK(lines[0].text == "no log of it was kept in the record");

    options.replica = "worker-7";
    lines = replayed_logs(record, options, done);
    CHECK_FALSE(done.ok());
    CHECK(done.error_code(0) == k_exit_not_found);

    options.replica = "";
    options.previous = true;
    lines = replayed_logs(record, options, done);
    CHECK(done.error_code(0) == k_exit_not_found);
}

}  // namespace kftrain::test
