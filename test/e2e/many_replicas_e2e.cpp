// A job of many small replicas on the real cluster, one of them made to fail: status sums them
// up, logs --tail reads them all in a few kubectl processes, logs -f follows the lead and the
// failed one, diagnose names it.

#include <fmt/format.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;

namespace {

constexpr int k_replicas = 24;  // 1 Master and 23 Workers: as many as the node holds with ease

// A kubectl that notes each call in a file, then is the real one.
std::string counting_kubectl(const std::string& record) {
    std::string path = kftrain::e2e::write_temp(
        "kubectl", fmt::format("#!/bin/sh\necho \"$*\" >> '{}'\nexec kubectl \"$@\"\n", record));
    chmod(path.c_str(), 0755);
    return path;
}

size_t lines_of(const std::string& path) {
    std::ifstream in(path);
    size_t count = 0;
    for (std::string line; std::getline(in, line);) {
        ++count;
    }
    return count;
}

}  // namespace

TEST_CASE("a job of 24 replicas with one failed reads summed up, in a few kubectl processes",
          "[e2e]") {
    Namespace ns("many");
    // Rank 7 (worker-6) fails at once; the others print a line a second for a while. One
    // stream only: the container runtime keeps no order between stdout and stderr.
    ns.submit(fmt::format(R"(name: many
image: {}
replicas: {}
restartPolicy: Never
command: [sh, -c]
args: ['echo "rank $RANK up"; if [ "$RANK" = 7 ]; then echo "rank 7 gives up"; exit 3; fi; i=0; while [ $i -lt 60 ]; do echo "rank $RANK tick $i"; i=$((i+1)); sleep 1; done']
resources: {{cpu: 10m, memory: 32Mi}}
)",
                          kftrain::e2e::busybox_image(), k_replicas));
    json doc;
    poll_until("every replica started and worker-6 failed", std::chrono::seconds(240),
               [&](std::string& last) {
                   auto run = ns.kftrain({"status", "many", "-o", "json"});
                   last = run.out + run.err;
                   if (run.code != 0) {
                       return false;
                   }
                   doc = json::parse(run.out);
                   int started = 0;
                   bool failed = false;
                   for (const auto& r : doc["replicas"]) {
                       started += r["state"] != "Pending" ? 1 : 0;
                       failed = failed || (r["name"] == "worker-6" && r["state"] == "Failed");
                   }
                   return started == k_replicas && failed;
               });

    auto status = ns.kftrain({"status", "many"});
    INFO(status.out);
    CHECK(status.code == 0);
    CHECK(status.out.find("Worker  23") != std::string::npos);
    CHECK(status.out.find("Not well: ") != std::string::npos);
    CHECK(status.out.find("\nworker-6 ") != std::string::npos);
    CHECK(status.out.find("First failure: worker-6: exit code 3 (Error)") != std::string::npos);
    CHECK(status.out.find("\nworker-5 ") == std::string::npos);  // a well one: no row

    const std::string record = kftrain::e2e::write_temp("calls", "");
    auto logs = kftrain::test::run_kftrain({"-n", ns.name(), "logs", "many", "--tail", "1"},
                                           {{"KFTRAIN_KUBECTL", counting_kubectl(record)}});
    INFO(logs.out << logs.err);
    CHECK(logs.code == 0);
    CHECK(logs.out.find("master-0 | rank 0 ") != std::string::npos);
    CHECK(logs.out.find("worker-6 | rank 7 gives up") != std::string::npos);
    CHECK(logs.out.find("worker-22 | rank 23 ") != std::string::npos);
    // The job, its pods, the master's log, one batch of the workers, and the context's name: a
    // failed job's record is keyed by it (docs/history.md), written by the status above.
    CHECK(lines_of(record) == 5);

    auto diagnosed = ns.kftrain({"diagnose", "many"});
    INFO(diagnosed.out);
    CHECK(diagnosed.out.find("worker-6") != std::string::npos);
    CHECK(diagnosed.out.find("exit code 3") != std::string::npos);

    auto followed = ns.kftrain({"logs", "many", "-f", "--poll-interval", "1s"});
    INFO(followed.out << followed.err);
    CHECK(followed.err.find("24 replicas: following master-0 and any replica that fails or "
                            "restarts") != std::string::npos);
    CHECK(followed.out.find("master-0 | rank 0 tick") != std::string::npos);
    CHECK(followed.out.find("worker-6 | rank 7 gives up") != std::string::npos);
    CHECK(followed.out.find("worker-5 |") == std::string::npos);
}
