#include "cli/view/status_view.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "cli/view/log_line.h"
#include "inspect/status_json.h"
#include "support/text.h"

using namespace kftrain;
using namespace kftrain::cli;

namespace {

job::JobStatus running_job() {
    job::JobStatus s;
    s.name = "mnist-ddp";
    s.namespace_ = "ml-training";
    s.backend = "kubernetes";
    s.phase = job::JobPhase::Running;
    s.reason = "PyTorchJobRunning";
    s.message = "PyTorchJob mnist-ddp is running.";
    s.created = "2024-05-01T10:00:00Z";
    s.started = "2024-05-01T10:00:05Z";
    s.counts["Master"] = {1, 0, 0};
    s.counts["Worker"] = {1, 0, 0};
    s.replicas_wanted = 2;
    s.replicas.push_back({"master-0", "Master", 0, "Running", "", "", 0, std::nullopt,
                          "mnist-ddp-master-0", "node-a", 0});
    s.replicas.push_back({"worker-0", "Worker", 0, "Running", "", "", 2, std::nullopt,
                          "mnist-ddp-worker-0", "node-b", 0});
    return s;
}

}  // namespace

TEST_CASE("status prints the state, times, counts and a replica table", "[cluster][view]") {
    std::ostringstream out;
    view::print_status(out, running_job(), view::OutputFormat::Table,
                       kftrain::test::time_at("2024-05-01T10:03:17Z"));
    CHECK(out.str() ==
          "Name:       mnist-ddp\n"
          "Kind:       PyTorchJob\n"
          "Namespace:  ml-training\n"
          "Backend:    kubernetes\n"
          "State:      Running (PyTorchJobRunning): PyTorchJob mnist-ddp is running.\n"
          "Created:    2024-05-01T10:00:00Z (3m17s ago)\n"
          "Started:    2024-05-01T10:00:05Z (3m12s ago)\n"
          "Duration:   3m12s\n"
          "Replicas:   Master: 1 active; Worker: 1 active\n"
          "Progress:   none reported: the program printed no progress kftrain reads (progress "
          "lines, tqdm bars, Keras or Hugging Face Trainer output, \"step 3/10\" lines) and "
          "posted no trainerStatus (docs/progress.md)\n"
          "\n"
          "REPLICA   STATE    RESTARTS  REASON\n"
          "master-0  Running  0\n"
          "worker-0  Running  2\n");
}

TEST_CASE("status lists every diagnosis line under one label", "[cluster][view]") {
    job::JobStatus s = running_job();
    s.diagnosis = {"worker-0: waiting", "worker-1: waiting"};
    std::ostringstream out;
    view::print_status(out, s, view::OutputFormat::Table,
                       kftrain::test::time_at("2024-05-01T10:03:17Z"));
    CHECK(out.str().find("Diagnosis:  worker-0: waiting\n"
                         "            worker-1: waiting\n") != std::string::npos);
}

TEST_CASE("status -o wide adds pod, node and exit code", "[cluster][view]") {
    std::ostringstream out;
    view::print_status(out, running_job(), view::OutputFormat::Wide,
                       kftrain::test::time_at("2024-05-01T10:03:17Z"));
    CHECK(out.str().find("REPLICA   STATE    RESTARTS  REASON  EXIT  POD                 NODE") !=
          std::string::npos);
    CHECK(out.str().find("mnist-ddp-worker-0  node-b") != std::string::npos);
}

TEST_CASE("status -o json carries the same fields", "[cluster][view]") {
    auto json =
        inspect::status_to_json(running_job(), kftrain::test::time_at("2024-05-01T10:03:17Z"));
    CHECK(json["state"] == "Running");
    CHECK(json["durationSeconds"] == 192.0);
    CHECK(json["replicas"][1]["restarts"] == 2);
    CHECK(json["replicaCounts"]["Worker"]["active"] == 1);
}

TEST_CASE("status -o yaml prints the JSON tree as YAML", "[cluster][view]") {
    std::ostringstream out;
    view::print_status(out, running_job(), view::OutputFormat::Yaml,
                       kftrain::test::time_at("2024-05-01T10:03:17Z"));
    CHECK(out.str().find("state: Running\n") != std::string::npos);
    CHECK(out.str().find("name: mnist-ddp\n") != std::string::npos);
}

TEST_CASE("a finished job's duration ends at its completion", "[cluster][view]") {
    job::JobStatus s = running_job();
    s.phase = job::JobPhase::Failed;
    s.finished = "2024-05-01T10:01:05Z";
    CHECK(*job::job_duration(s, kftrain::test::time_at("2024-05-02T00:00:00Z")) == 60.0);
}

TEST_CASE("a suspended job's duration, and so its cost, stops at its suspension",
          "[cluster][view]") {
    job::JobStatus s = running_job();
    s.phase = job::JobPhase::Suspended;
    s.suspended_since = "2024-05-01T10:02:05Z";
    CHECK(*job::job_duration(s, kftrain::test::time_at("2024-05-02T00:00:00Z")) == 120.0);
}

TEST_CASE("a job waiting in its queue has run for no time yet", "[cluster][view]") {
    job::JobStatus s = running_job();
    s.phase = job::JobPhase::Suspended;  // Kueue holds it suspended until it admits it
    s.started.clear();
    s.queue = job::QueueStatus{};
    s.queue->local_queue = "team-a";
    CHECK(*job::job_duration(s, kftrain::test::time_at("2024-05-02T00:00:00Z")) == 0.0);
    s.queue->state = job::QueueState::Admitted;
    CHECK(*job::job_duration(s, kftrain::test::time_at("2024-05-02T00:00:00Z")) > 0.0);
}

TEST_CASE("list prints one row per job with its kind, with namespaces under -A",
          "[cluster][view]") {
    job::JobStatus other = running_job();
    other.name = "cifar";
    other.kind = "TrainJob";
    other.namespace_ = "team-b";
    other.phase = job::JobPhase::Succeeded;
    other.counts = {{"Master", {0, 1, 0}}};
    other.replicas_wanted = 0;
    std::ostringstream out;
    view::print_list(out, {running_job(), other}, view::OutputFormat::Table, true,
                     kftrain::test::time_at("2024-05-01T11:00:00Z"));
    CHECK(out.str() ==
          "NAMESPACE    NAME       KIND        STATE      REPLICAS  AGE\n"
          "ml-training  mnist-ddp  PyTorchJob  Running    2/2       1h0m\n"
          "team-b       cifar      TrainJob    Succeeded  0         1h0m\n");
}

TEST_CASE("log lines get a replica prefix and readable progress", "[cluster][view]") {
    const std::string json_line =
        R"({"event":"warning","rank":0,"world_size":2,"time":"t","message":"slow"})";
    CHECK(view::format_log_line({"master-0", "hello"}, false) == "master-0 | hello");
    CHECK(view::format_log_line({"worker-2", "hello"}, false, 9) == "worker-2  | hello");
    CHECK(view::format_log_line({"master-0", json_line}, false) == "master-0 | warning: slow");
    CHECK(view::format_log_line({"master-0", json_line}, true) == "master-0 | " + json_line);
    CHECK(view::format_log_line({"master-0", "2024-05-01T10:00:00.5Z " + json_line}, false) ==
          "master-0 | 2024-05-01T10:00:00.5Z warning: slow");
}

TEST_CASE("output formats are parsed from -o among those a verb offers", "[cluster][view]") {
    using view::OutputFormat;
    const std::vector<OutputFormat> all = {OutputFormat::Table, OutputFormat::Wide,
                                           OutputFormat::Json, OutputFormat::Yaml};
    CHECK(*view::parse_output_format("", all) == OutputFormat::Table);
    CHECK(*view::parse_output_format("wide", all) == OutputFormat::Wide);
    CHECK(*view::parse_output_format("yaml", all) == OutputFormat::Yaml);
    CHECK(view::parse_output_format("xml", all).error() ==
          "-o/--output: must be table, wide, json or yaml (got xml)");
    const std::vector<OutputFormat> manifest = {OutputFormat::Yaml, OutputFormat::Json};
    CHECK(*view::parse_output_format("", manifest) == OutputFormat::Yaml);
    CHECK(view::parse_output_format("wide", manifest).error() ==
          "-o/--output: must be yaml or json (got wide)");
}
