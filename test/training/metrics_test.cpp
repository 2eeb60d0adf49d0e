// A real Prometheus (Debian's) scrapes a two-replica local job of the real trainer: both
// ranks' sample counters arrive and grow, and promtool accepts the exposition. Built only with
// the trainer (test/CMakeLists.txt); CI installs prometheus (scripts/setup.sh).
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "backend/local/local_fixture.h"
#include "support/metrics_scrape.h"
#include "support/paths.h"
#include "trainer/http/client.h"
#include "util/process_info.h"
#include "util/run.h"
#include "util/subprocess.h"

using namespace kftrain::test;
using json = nlohmann::json;
namespace http = kftrain::trainer::http;

namespace {

// A Prometheus server for one test, stopped when the test ends.
class Prometheus {
  public:
    Prometheus(const std::string& dir, const std::vector<std::string>& targets) {
        auto port = kftrain::util::free_port();
        REQUIRE(port.ok());
        m_url = "http://127.0.0.1:" + std::to_string(*port);
        std::string list;
        for (const auto& target : targets) {
            list += (list.empty() ? "" : ", ") + ("'" + target + "'");
        }
        write_file(dir + "/prometheus.yml",
                   "global: {scrape_interval: 1s, scrape_timeout: 1s}\n"
                   "scrape_configs:\n"
                   "  - job_name: kftrain-test\n"
                   "    honor_labels: true\n"
                   "    static_configs: [{targets: [" +
                       list + "]}]\n");
        const auto binary = kftrain::util::find_executable("prometheus");
        REQUIRE(binary);  // scripts/setup.sh installs it: never skipped
        kftrain::util::SpawnOptions options;
        options.argv = {*binary, "--config.file=" + dir + "/prometheus.yml",
                        "--storage.tsdb.path=" + dir + "/tsdb",
                        "--web.listen-address=127.0.0.1:" + std::to_string(*port)};
        options.stdout_to = kftrain::util::Redirect::file(dir + "/prometheus.log");
        options.stderr_to = kftrain::util::Redirect::file(dir + "/prometheus.log");
        options.own_group = true;
        auto process = kftrain::util::Process::spawn(options);
        REQUIRE(process.ok());
        m_process.emplace(std::move(*process));
    }
    ~Prometheus() {
        m_process->signal(SIGKILL);
        (void)m_process->wait();
    }

    // Run an instant query; return Prometheus' answer (status 0 while it is not up).
    http::HttpResponse answer(const std::string& promql) {
        http::HttpClient client(std::chrono::milliseconds(5000));
        return client.get(m_url + "/api/v1/query?query=" + client.escape(promql), {});
    }

    // Return the series of an instant query: rank -> value; empty until Prometheus answers.
    std::map<std::string, double> query(const std::string& promql) {
        auto got = answer(promql);
        std::map<std::string, double> series;
        if (got.status != 200) {
            return series;
        }
        auto body = json::parse(got.body);
        for (const auto& s : body["data"]["result"]) {
            series[s["metric"].value("rank", "")] = std::stod(s["value"][1].get<std::string>());
        }
        return series;
    }

  private:
    std::string m_url;
    std::optional<kftrain::util::Process> m_process;
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
}

// Poll until pred holds for a query's series; fail after the deadline.
std::map<std::string, double> wait_for_series(
    Prometheus& prometheus, const std::string& promql,
    const std::function<bool(const std::map<std::string, double>&)>& pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (true) {
        auto series = prometheus.query(promql);
        if (pred(series)) {
            return series;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            FAIL("Prometheus never answered " << promql << " as expected");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

}  // namespace

TEST_CASE("a real Prometheus scrapes both ranks of a local job and their sample counters grow",
          "[metrics][training][trainer]") {
    http::init_curl_once();
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/metrics.yaml";
    write_file(file,
               "name: metrics-job\nreplicas: 2\nenv:\n  OMP_NUM_THREADS: \"1\"\n"
               "trainer: {dataset: synthetic, model: mlp, epochs: 500, samples: 2048, threads: 1, "
               "logEvery: 4, metricsPort: 9400}\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("metrics-job",
                  [](const auto& s) { return s.phase == kftrain::job::JobPhase::Running; });
    // Each replica serves on a port of its own, which describe lists.
    auto described =
        json::parse(jobs.kftrain({"describe", "metrics-job", "--local", "-o", "json"}).out);
    std::vector<std::string> targets;
    std::vector<std::string> urls;
    for (const auto& replica : described["replicas"]) {
        REQUIRE(replica["metrics"].size() == 1);
        const std::string url = replica["metrics"][0].get<std::string>();
        urls.push_back(url);
        targets.push_back(url.substr(7, url.find("/metrics") - 7));  // 127.0.0.1:PORT
    }
    REQUIRE(targets.size() == 2);
    CHECK(targets[0] != targets[1]);

    Prometheus prometheus(jobs.dir(), targets);
    const std::string samples = "kftrain_samples_total{job=\"metrics-job\"}";
    auto first = wait_for_series(prometheus, samples, [](const auto& s) {
        return s.count("0") == 1 && s.count("1") == 1 && s.at("0") > 0 && s.at("1") > 0;
    });
    wait_for_series(prometheus, samples, [&first](const auto& s) {
        return s.count("0") == 1 && s.count("1") == 1 && s.at("0") > first.at("0") &&
               s.at("1") > first.at("1");
    });
    // The loss gauge and the step histogram arrive too, for both ranks.
    wait_for_series(prometheus, "kftrain_loss{job=\"metrics-job\"}",
                    [](const auto& s) { return s.size() == 2; });
    wait_for_series(prometheus, "rate(kftrain_step_seconds_count{job=\"metrics-job\"}[5s])",
                    [](const auto& s) { return s.size() == 2; });

    // Every query of the Grafana dashboard runs, as Grafana sends it, and finds the job.
    const auto dashboard = json::parse(
        read_bytes(std::string(kftrain::test::source_dir()) + "/packaging/grafana/kftrain.json"));
    for (const auto& panel : dashboard["panels"]) {
        for (const auto& target : panel["targets"]) {
            std::string expr = target["expr"];
            replace_all(expr, "$job", "metrics-job");
            replace_all(expr, "$__rate_interval", "10s");
            INFO(panel["title"] << ": " << expr);
            auto got = prometheus.answer(expr);
            REQUIRE(got.status == 200);
            CHECK(json::parse(got.body)["status"] == "success");
        }
    }
    wait_for_series(prometheus,
                    "sum by (rank) (rate(kftrain_samples_total{job=~\"metrics-job\"}[10s]))",
                    [](const auto& s) { return s.size() == 2; });

    // promtool, Prometheus' own checker, accepts what a replica serves.
    http::HttpClient client(std::chrono::milliseconds(5000));
    auto scrape = client.get(urls[1], {});
    REQUIRE(scrape.status == 200);
    const auto promtool = kftrain::util::find_executable("promtool");
    REQUIRE(promtool);
    kftrain::util::RunOptions check;
    check.argv = {*promtool, "check", "metrics"};
    check.input = scrape.body;
    check.timeout = std::chrono::seconds(30);
    auto checked = kftrain::util::run(check);
    REQUIRE(checked.ok());
    INFO(checked->out << checked->err);
    CHECK(checked->status.success());
    CHECK(checked->out + checked->err == "");

    CHECK(jobs.kftrain({"delete", "metrics-job", "--local"}).code == 0);
}

TEST_CASE("each local process of a replica serves its own rank's metrics, listed while it runs",
          "[metrics][training][trainer]") {
    http::init_curl_once();
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/nproc.yaml";
    write_file(file,
               "name: metrics-nproc\nreplicas: 1\nnprocPerNode: \"2\"\n"
               "env:\n  OMP_NUM_THREADS: \"1\"\n"
               "trainer: {dataset: synthetic, model: mlp, epochs: 500, samples: 2048, threads: 1, "
               "logEvery: 4, metricsPort: 9400}\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("metrics-nproc",
                  [](const auto& s) { return s.phase == kftrain::job::JobPhase::Running; });
    const auto urls =
        json::parse(jobs.kftrain({"describe", "metrics-nproc", "--local", "-o", "json"})
                        .out)["replicas"][0]["metrics"];
    REQUIRE(urls.size() == 2);
    // Local rank i serves global rank i here (one replica): poll each until it has trained.
    for (int rank = 0; rank < 2; ++rank) {
        const auto url = urls[rank].get<std::string>();
        const std::string sample =
            "kftrain_samples_total{job=\"metrics-nproc\",rank=\"" + std::to_string(rank) + "\"} ";
        wait_for_sample(url, sample);
    }
    // Suspended, the replica runs no more: describe lists no metrics for it.
    REQUIRE(jobs.kftrain({"suspend", "metrics-nproc", "--local"}).code == 0);
    jobs.wait_for("metrics-nproc",
                  [](const auto& s) { return s.phase == kftrain::job::JobPhase::Suspended; });
    const auto after =
        json::parse(jobs.kftrain({"describe", "metrics-nproc", "--local", "-o", "json"}).out);
    CHECK(after["replicas"][0]["metrics"].empty());
    CHECK(jobs.kftrain({"delete", "metrics-nproc", "--local"}).code == 0);
}
