#include "backend/kube/logs.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>

using namespace kftrain;
namespace util = kftrain::util;

namespace {

// A kubectl that answers `logs POD` with "POD line 1/2", counting how many
// calls run at once. The master's call waits until every other call has
// finished, so it completes last.
class CountingKubectl : public backend::kube::KubectlRunner {
  public:
    explicit CountingKubectl(size_t others) : m_others(others) {}

    util::Result<backend::kube::KubectlResult> run(const std::vector<std::string>& args,
                                                   const std::string&) override {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_now += 1;
        m_max = std::max(m_max, m_now);
        const std::string& pod = args.at(1);
        if (pod.find("master") != std::string::npos) {
            m_done.wait_for(lock, std::chrono::seconds(10), [&] { return m_finished >= m_others; });
        }
        m_now -= 1;
        m_finished += 1;
        m_done.notify_all();
        if (pod.find("broken") != std::string::npos) {
            return backend::kube::KubectlResult{
                1, "", "Error from server (BadRequest): something broke\n"};
        }
        return backend::kube::KubectlResult{0, pod + " line 1\n" + pod + " line 2\n", ""};
    }

    util::Result<backend::kube::KubectlResult> stream(const std::vector<std::string>& args,
                                                      const util::LineCallback&,
                                                      const std::atomic<bool>*) override {
        return run(args, "");
    }

    size_t max_seen() const { return m_max; }

  private:
    size_t m_others;
    std::mutex m_mutex;
    std::condition_variable m_done;
    size_t m_now = 0;
    size_t m_max = 0;
    size_t m_finished = 0;
};

std::vector<job::ReplicaStatus> replicas(size_t workers) {
    std::vector<job::ReplicaStatus> out;
    out.push_back({"master-0", "Master", 0, "Running", "", "", 0, {}, "job-master-0", "", 0});
    for (size_t i = 0; i < workers; ++i) {
        std::string name = "worker-" + std::to_string(i);
        out.push_back(
            {name, "Worker", static_cast<int>(i), "Running", "", "", 0, {}, "job-" + name, "", 0});
    }
    return out;
}

}  // namespace

TEST_CASE("logs without -f are grouped per replica in replica order", "[cluster][logs]") {
    CountingKubectl kubectl(2);
    std::vector<std::string> shown;
    auto done = backend::kube::fetch_logs(
        kubectl, replicas(2), "", job::LogOptions{}, {},
        [&](const job::LogLine& line) { shown.push_back(line.replica + "|" + line.text); });
    REQUIRE(done);
    CHECK(shown ==
          std::vector<std::string>{"master-0|job-master-0 line 1", "master-0|job-master-0 line 2",
                                   "worker-0|job-worker-0 line 1", "worker-0|job-worker-0 line 2",
                                   "worker-1|job-worker-1 line 1", "worker-1|job-worker-1 line 2"});
}

TEST_CASE("logs never run more kubectl calls at once than the bound", "[cluster][logs]") {
    CountingKubectl kubectl(8);
    size_t lines = 0;
    auto done = backend::kube::fetch_logs(
        kubectl, replicas(8), "", job::LogOptions{}, {}, [&](const job::LogLine&) { ++lines; }, 4);
    REQUIRE(done);
    CHECK(lines == 18);
    CHECK(kubectl.max_seen() <= 4);
}

TEST_CASE("a replica whose log fails is a notice, the others still print", "[cluster][logs]") {
    CountingKubectl kubectl(2);
    auto chosen = replicas(2);
    chosen[1].pod = "job-broken-0";
    std::vector<job::LogLine> shown;
    auto done = backend::kube::fetch_logs(kubectl, chosen, "", job::LogOptions{}, {},
                                          [&](const job::LogLine& line) { shown.push_back(line); });
    REQUIRE_FALSE(done);
    CHECK(done.error() == "could not read the logs of 1 of 3 replicas");
    CHECK(done.error_code(0) == 4);
    REQUIRE(shown.size() == 5);
    CHECK(shown[2].notice);
    CHECK(shown[2].replica == "worker-0");
    CHECK(shown[2].text ==
          "reading the log of job-broken-0: Error from server (BadRequest): something broke");
    CHECK(shown[4].text == "job-worker-1 line 2");
}

TEST_CASE("kubectl logs gets the container, tail, since, timestamps and previous",
          "[cluster][logs]") {
    job::LogOptions options;
    options.tail = 100;
    options.since = "10m";
    options.timestamps = true;
    options.previous = true;
    job::ReplicaStatus worker;
    worker.pod = "job-worker-3";
    CHECK(backend::kube::log_args(worker, options, {"-n", "ml"}) ==
          std::vector<std::string>{"logs", "job-worker-3", "-c", "pytorch", "--tail=100",
                                   "--since=10m", "--timestamps", "-p", "-n", "ml"});
    job::LogOptions follow;
    follow.follow = true;
    job::ReplicaStatus pod;
    pod.pod = "p";
    CHECK(backend::kube::log_args(pod, follow, {}) ==
          std::vector<std::string>{"logs", "p", "-c", "pytorch", "-f"});
    job::ReplicaStatus node;
    node.pod = "mnist-trainjob-node-0-1-q9w4m";
    node.container = "node";
    CHECK(backend::kube::log_args(node, follow, {}) ==
          std::vector<std::string>{"logs", "mnist-trainjob-node-0-1-q9w4m", "-c", "node", "-f"});
}
