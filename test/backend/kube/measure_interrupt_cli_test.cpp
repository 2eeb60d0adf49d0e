// `kftrain estimate --measure --on-cluster` interrupted while its clean-up gets no answer: a
// second Ctrl-C ends it at once, and its last line names what may be left rather than saying
// everything was deleted.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/subprocess.h"

namespace {

using kftrain::test::contains;
using kftrain::test::FakeCluster;
using kftrain::test::write_file;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Return how many kubectl calls so far have every one of these words.
std::size_t calls_with(const FakeCluster& cluster, const std::vector<std::string>& words) {
    std::size_t n = 0;
    for (const auto& argv : cluster.calls()) {
        n += std::all_of(words.begin(), words.end(), [&](const std::string& word) {
            return std::find(argv.begin(), argv.end(), word) != argv.end();
        });
    }
    return n;
}

// Wait until the fake has seen a call with these words; false at the deadline.
bool poll_for_call(const FakeCluster& cluster, const std::vector<std::string>& words,
                   std::size_t count = 1) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline) {
        if (calls_with(cluster, words) >= count) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

}  // namespace

TEST_CASE(
    "a second Ctrl-C ends a cluster measurement whose clean-up hangs, naming what may be left",
    "[estimate][measure][cluster][cli]") {
    const std::string dir = kftrain::test::make_temp_dir();
    write_file(dir + "/job.yaml",
               "name: own\nnamespace: ml\nreplicas: 2\nimage: python:3.11\n"
               "command: [python3, -c, \"print(1)\"]\nresources:\n  cpu: \"1\"\n  memory: 1Gi\n");
    // The size's job is not there when kftrain looks before submitting, then runs; every
    // delete hangs, as against an API server that stopped answering.
    std::ifstream in(std::string(kftrain::test::test_data_dir()) + "/kube/job-v19-running.json");
    json job = json::parse(in);
    job["metadata"]["name"] = "own-measure-1";
    write_file(dir + "/measured.json", job.dump());
    write_file(dir + "/scenario.json",
               json{{"states", {{{"job", nullptr}}, {{"job", "measured.json"}}}},
                    {"hang", {{{"when", {"delete"}}}}}}
                   .dump());
    FakeCluster cluster(dir + "/scenario.json");

    kftrain::util::SpawnOptions spawn;
    spawn.argv = {kftrain::test::kftrain_binary(),
                  "estimate",
                  "-f",
                  dir + "/job.yaml",
                  "--measure",
                  "--on-cluster",
                  "--yes",
                  "--measure-replicas",
                  "1",
                  "--measure-seconds",
                  "60s"};
    spawn.env = cluster.env();
    spawn.stdout_to = kftrain::util::Redirect::null();
    spawn.stderr_to = kftrain::util::Redirect::file(dir + "/err.txt");
    auto started = kftrain::util::Process::spawn(spawn);
    REQUIRE(started);
    auto& kftrain = started.value();

    // Once the size runs and is watched, Ctrl-C; once its delete hangs, Ctrl-C again.
    REQUIRE(poll_for_call(cluster, {"apply"}));
    REQUIRE(poll_for_call(cluster, {"get", "own-measure-1"}, 2));
    kftrain.signal(SIGINT);
    REQUIRE(poll_for_call(cluster, {"delete"}));
    kftrain.signal(SIGINT);
    auto ended = kftrain.wait();
    REQUIRE(ended);
    const std::string err = kftrain::test::read_bytes(dir + "/err.txt");
    INFO(err);
    CHECK(ended->as_shell_code() == 130);
    CHECK(contains(err,
                   "its clean-up stopped too; what may be left: job own-measure-1 "
                   "(kftrain delete own-measure-1)"));
    CHECK(!contains(err, "every measurement job it started was deleted"));
    // Stopped means stopped: nothing tried the delete again on the way out.
    CHECK(calls_with(cluster, {"delete"}) == 1);
}
