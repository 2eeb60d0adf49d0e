// `kftrain estimate --measure --on-cluster` on real pods: the trainer image measured at 1 and
// 2 replicas, its prediction held against a whole run, and nothing left behind when it is done,
// interrupted, or its pods never start. The one whose prediction is held against a run is serial
// ([serial]): a measurement times what it runs, and a test beside it on the same two cores would
// be timed with it; the others time nothing and run beside the rest of the suite.

#include <signal.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <thread>

#include "e2e/cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/text.h"
#include "util/subprocess.h"
#include "util/text.h"
#include "util/time_text.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using kftrain::test::contains;
using nlohmann::json;

namespace {

// The trainer at 2 replicas for about a minute, a core each: long enough that a whole run is
// mostly training, as the runs an estimate is for are. With less than a core each, the tests
// that time nothing share the node with the rest of the suite. It reports every step: a range
// needs 3 blocks of 10 reports' advance each, which a measurement of 20s on a loaded machine
// did not reach at every 4th step (CI, 2026-12-06: no range at 2 replicas).
std::string minute_job(const std::string& name, const std::string& image,
                       const std::string& cpu = "1") {
    return "name: " + name + "\nkind: PyTorchJob\nimage: " + image +
           "\nreplicas: 2\nresources:\n  cpu: \"" + cpu +
           "\"\n  memory: 512Mi\n"
           "trainer:\n  dataset: synthetic\n  model: mnist-cnn\n  samples: 16384\n"
           "  batchSize: 32\n  epochs: 1\n  threads: 1\n  logEvery: 1\n  timeout: 300\n";
}

// What of a measurement is left in the namespace: its jobs, pods and code ConfigMaps.
std::string measurement_left(const Namespace& ns) {
    std::string left;
    for (const std::string& line : kftrain::util::split_lines(
             ns.kubectl({"get", "pytorchjobs,trainjobs,pods,configmaps", "-o", "name"}).out)) {
        if (contains(line, "-measure-")) {
            left += line + "\n";
        }
    }
    return left;
}

// Return when the job ended minus when it was created (the lead's container's end), seconds.
double whole_run_seconds(const Namespace& ns, const std::string& job) {
    json got = json::parse(ns.kubectl({"get", "pytorchjob", job, "-o", "json"}).out);
    json pod = json::parse(ns.kubectl({"get", "pod", job + "-master-0", "-o", "json"}).out);
    const auto created =
        kftrain::util::parse_timestamp_seconds(got["metadata"]["creationTimestamp"]);
    std::string ended;
    for (const auto& status : pod["status"]["containerStatuses"]) {
        if (status["name"] == "pytorch") {
            ended = status["state"]["terminated"]["finishedAt"].get<std::string>();
        }
    }
    const auto finished = kftrain::util::parse_timestamp_seconds(ended);
    REQUIRE(created);
    REQUIRE(finished);
    return *finished - *created;
}

}  // namespace

TEST_CASE(
    "the trainer image measured on the cluster predicts a run with a range, and that run "
    "succeeds",
    "[e2e][serial]") {
    Namespace ns("measure");
    const std::string job = minute_job("fit", kftrain::e2e::trainer_image());
    const std::string file = kftrain::e2e::write_temp("fit.yaml", job);
    auto measured = ns.kftrain({"estimate", "-f", file, "--measure", "--on-cluster", "--yes",
                                "--measure-replicas", "1,2", "--measure-seconds", "20s",
                                "--workers", "1,2", "-o", "json"});
    INFO(measured.err);
    REQUIRE(measured.code == 0);
    CHECK(contains(measured.err, "measuring on the cluster"));
    CHECK(contains(measured.err, "fit-measure-2 started after"));
    // Nothing of it is left: it waited for its pods to go before it printed.
    CHECK(measurement_left(ns).empty());
    json report = json::parse(measured.out);
    INFO("range: " << report["range"].dump() << "\nsizes: " << report["sizes"].dump());
    CHECK(report["program"]["measured_on"] == "cluster");
    CHECK(contains(report["program"]["where"].get<std::string>(), "namespace " + ns.name()));
    REQUIRE(report["sizes"].size() == 2);
    for (const auto& size : report["sizes"]) {
        CHECK(size["step_basis"] == "measured");
    }
    const json& two = report["sizes"][1];
    const double predicted = two["total_s"].get<double>();
    // An honest range around it, from the spread of what was measured.
    REQUIRE(two["total_s_low"].is_number());
    REQUIRE(two["total_s_high"].is_number());
    CHECK(two["total_s_low"].get<double>() <= predicted);
    CHECK(predicted <= two["total_s_high"].get<double>());

    // A later estimate of the job reads the saved measurement, and says it was the cluster's.
    auto table = ns.kftrain({"estimate", "-f", file, "--workers", "1,2"});
    INFO(table.out << table.err);
    REQUIRE(table.code == 0);
    CHECK(contains(table.out, "replicas on the cluster (context"));
    const std::string rows = table.out.substr(0, table.out.find("Assumptions"));
    CHECK(std::count(rows.begin(), rows.end(), '\n') > 2);
    size_t marked = 0;
    for (size_t at = rows.find("measured on cluster"); at != std::string::npos;
         at = rows.find("measured on cluster", at + 1)) {
        ++marked;
    }
    CHECK(marked == 2);

    // The whole run, on the same cluster. How close the prediction comes is a figure, not a
    // check: a loaded machine moves it (bench/cluster_measure.sh measures it,
    // docs/benchmarks-estimate.md has the figures); the test says it for the log.
    ns.submit(job);
    auto waited =
        ns.kftrain({"wait", "fit", "--for", "succeeded", "--timeout", "10m", "--interval", "1s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);
    const double actual = whole_run_seconds(ns, "fit");
    CHECK(actual > 0);
    WARN("predicted " << predicted << " s (" << two["total_s_low"].get<double>() << " to "
                      << two["total_s_high"].get<double>() << "), actual " << actual << " s");
}

TEST_CASE("Ctrl-C during the second size of a measurement on the cluster leaves nothing running",
          "[e2e]") {
    Namespace ns("measure-stop");
    const std::string file = kftrain::e2e::write_temp(
        "stop.yaml", minute_job("stop", kftrain::e2e::trainer_image(), "250m"));
    const std::string dir = kftrain::test::make_temp_dir();
    kftrain::util::SpawnOptions options;
    options.argv = {kftrain::test::kftrain_binary(),
                    "-n",
                    ns.name(),
                    "estimate",
                    "-f",
                    file,
                    "--measure",
                    "--on-cluster",
                    "--yes",
                    "--measure-replicas",
                    "1,2",
                    "--measure-seconds",
                    "5s"};
    options.stdout_to = kftrain::util::Redirect::file(dir + "/out");
    options.stderr_to = kftrain::util::Redirect::file(dir + "/err");
    options.new_session = true;
    auto spawned = kftrain::util::Process::spawn(options);
    REQUIRE(spawned.ok());
    kftrain::test::Reaped estimate{std::move(*spawned)};
    poll_until("the second size's pods to run", std::chrono::seconds(300), [&](std::string& last) {
        last = kftrain::test::read_bytes(dir + "/err") + kftrain::e2e::pods_of(ns);
        REQUIRE_FALSE(estimate.process.try_wait());
        return contains(last, "stop-measure-2 started after");
    });
    estimate.process.signal(SIGINT);
    const auto ended = kftrain::test::wait_exit(estimate.process, std::chrono::seconds(180), [&] {
        return kftrain::test::read_bytes(dir + "/err");
    });
    INFO(kftrain::test::read_bytes(dir + "/err"));
    CHECK(ended.code == 130);
    CHECK(contains(kftrain::test::read_bytes(dir + "/err"), "stopped by"));
    CHECK(measurement_left(ns).empty());
    CHECK(kftrain::test::read_bytes(dir + "/out").empty());
}

TEST_CASE("a measurement whose pods never start fails in time, naming why, and leaves nothing",
          "[e2e]") {
    Namespace ns("measure-pull");
    const std::string job = minute_job("nopull", "registry.invalid/kftrain/none:1", "100m") +
                            "imagePullPolicy: Always\n";
    const std::string file = kftrain::e2e::write_temp("nopull.yaml", job);
    auto run = ns.kftrain({"estimate", "-f", file, "--measure", "--on-cluster", "--yes",
                           "--measure-replicas", "1", "--start-timeout", "30s"});
    INFO(run.err);
    CHECK(run.code == 1);
    CHECK(contains(run.err, "the pods of nopull-measure-1 did not start within 30s"));
    CHECK((contains(run.err, "ImagePull") || contains(run.err, "ErrImagePull") ||
           contains(run.err, "pull")));
    CHECK(measurement_left(ns).empty());
}
