// metrics.port for a program of the user's own, run locally: each replica is told a port of
// its own in KFTRAIN_METRICS_PORT, and describe lists where to scrape it, at the job's path.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "backend/local/local_fixture.h"
#include "support/metrics_scrape.h"
#include "support/paths.h"

using namespace kftrain::test;
using json = nlohmann::json;

TEST_CASE("a program of your own serves metrics at the port and path kftrain gives each replica",
          "[local][cli][metrics]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/own.yaml";
    write_file(file, "name: own-metrics\nreplicas: 2\ncommand: [python3, \"" +
                         std::string(kftrain::test::test_data_dir()) +
                         "/metrics/serve.py\"]\nmetrics: {port: 8000, path: /stats}\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("own-metrics",
                  [](const auto& s) { return s.phase == kftrain::job::JobPhase::Running; });
    const auto described =
        json::parse(jobs.kftrain({"describe", "own-metrics", "--local", "-o", "json"}).out);
    std::vector<std::string> urls;
    for (const auto& replica : described["replicas"]) {
        REQUIRE(replica["metrics"].size() == 1);
        urls.push_back(replica["metrics"][0].get<std::string>());
    }
    REQUIRE(urls.size() == 2);
    CHECK(urls[0] != urls[1]);
    for (int rank = 0; rank < 2; ++rank) {
        INFO(urls[rank]);
        CHECK(urls[rank].substr(urls[rank].size() - 6) == "/stats");
        const std::string sample = "my_program_up{rank=\"" + std::to_string(rank) + "\"} 1";
        wait_for_sample(urls[rank], sample, std::chrono::seconds(60));
    }
    CHECK(jobs.kftrain({"delete", "own-metrics", "--local"}).code == 0);
}
