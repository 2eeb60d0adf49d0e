// kubectl that hangs, leaves children behind, is interrupted or prints hostile text: kftrain
// keeps its own deadline, ends kubectl's whole process group, and prints what it says safely.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <thread>

#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/subprocess.h"

namespace {

using kftrain::test::contains;
using kftrain::test::FakeCluster;
using Clock = std::chrono::steady_clock;

constexpr auto k_kubectl_poll = std::chrono::milliseconds(50);

// Return the pids the fake kubectl noted (each call's, and the children it left).
std::vector<pid_t> fake_pids(const FakeCluster& cluster) {
    std::vector<pid_t> pids;
    std::ifstream in(cluster.env().at("KFTRAIN_FAKE_RECORD") + ".pids");
    for (pid_t pid = 0; in >> pid;) {
        pids.push_back(pid);
    }
    return pids;
}

bool running(pid_t pid) {
    return ::kill(pid, 0) == 0 || errno != ESRCH;
}

// Check that every noted process has ended, giving them ten seconds.
void check_all_ended(const std::vector<pid_t>& pids) {
    auto deadline = Clock::now() + std::chrono::seconds(10);
    for (pid_t pid : pids) {
        INFO("fake kubectl process " << pid);
        while (running(pid) && Clock::now() < deadline) {
            std::this_thread::sleep_for(k_kubectl_poll);
        }
        CHECK_FALSE(running(pid));
    }
}

}  // namespace

TEST_CASE("A kubectl that never answers is stopped at kftrain's own deadline", "[kube][cli]") {
    FakeCluster cluster("kubectl-hangs");
    auto run = cluster.run({"status", "mnist-ddp", "--request-timeout", "1s"});
    INFO(run.err);
    CHECK(run.code == 4);
    CHECK(contains(run.err, "kubectl get"));
    CHECK(contains(run.err, "did not finish within 6s; kftrain stopped it"));
    CHECK(contains(run.err, "--request-timeout"));
    auto pids = fake_pids(cluster);
    CHECK(pids.size() == 1);
    check_all_ended(pids);
}

TEST_CASE("A kubectl that leaves a child holding its output does not hang kftrain", "[kube][cli]") {
    FakeCluster cluster("kubectl-orphan");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training"});
    INFO(run.err);
    CHECK(run.code == 0);
    CHECK(contains(run.out, "mnist-ddp"));
    auto pids = fake_pids(cluster);
    CHECK(pids.size() >= 2);  // each get and the child it left
    check_all_ended(pids);
}

TEST_CASE("wait --timeout holds on the wall clock while kubectl hangs", "[kube][cli]") {
    FakeCluster cluster("kubectl-hangs");
    auto run = cluster.run({"wait", "mnist-ddp", "--timeout", "2s"});
    INFO(run.err);
    CHECK(run.code == 5);
    CHECK(contains(run.err,
                   "timed out after 2s waiting for mnist-ddp to be succeeded (the "
                   "cluster had not answered yet)"));
    check_all_ended(fake_pids(cluster));
}

TEST_CASE("Ctrl-C on kftrain ends the kubectl it runs", "[kube][cli]") {
    FakeCluster cluster("kubectl-hangs");
    kftrain::util::SpawnOptions spawn;
    spawn.argv = {kftrain::test::kftrain_binary(), "status", "mnist-ddp"};
    spawn.env = cluster.env();
    spawn.stdout_to = kftrain::util::Redirect::null();
    spawn.stderr_to = kftrain::util::Redirect::null();
    auto started = kftrain::util::Process::spawn(spawn);
    REQUIRE(started);
    auto& kftrain = started.value();

    // Wait until kftrain's kubectl runs (it notes its pid), then interrupt kftrain alone, as
    // a terminal would: kubectl runs in a process group of its own.
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (fake_pids(cluster).empty() && Clock::now() < deadline) {
        std::this_thread::sleep_for(k_kubectl_poll);
    }
    REQUIRE(fake_pids(cluster).size() == 1);
    kftrain.signal(SIGINT);
    auto ended = kftrain.wait();
    REQUIRE(ended);
    CHECK(ended->signal == SIGINT);
    check_all_ended(fake_pids(cluster));
}

TEST_CASE("kubectl's error is printed with its control characters escaped", "[kube][cli]") {
    FakeCluster cluster("kubectl-noisy-error");
    auto run = cluster.run({"status", "mnist-ddp"});
    INFO(run.err);
    CHECK(run.code == 4);
    CHECK(contains(run.err, "\\x1b[31mthe server is on fire\\x1b[0m\\rforged line\\x07"));
    CHECK_FALSE(contains(run.err, "\x1b"));
    CHECK_FALSE(contains(run.err, "\r"));
    CHECK_FALSE(contains(run.err, "\a"));
}

TEST_CASE("A megabyte kubectl error line is cut with a note", "[kube][cli]") {
    FakeCluster cluster("kubectl-huge-error");
    auto run = cluster.run({"status", "mnist-ddp"});
    CHECK(run.code == 4);
    CHECK(contains(run.err, "the server said no."));
    CHECK(contains(run.err, "more bytes)"));
    CHECK(run.err.size() < 1000);
}

TEST_CASE("Names that are not Kubernetes names never reach kubectl", "[kube][cli]") {
    FakeCluster cluster("running");
    const std::vector<std::vector<std::string>> commands = {
        {"delete", "--", "--all"},   {"status", "--", "--all"},
        {"describe", "--", "--all"}, {"logs", "--", "-l"},
        {"wait", "--", "--all"},     {"status", "../mnist"},
        {"logs", "Mnist"},           {"tune", "status", "--", "--all"},
        {"tune", "delete", "a/b"},   {"tune", "logs", "s", "--trial=-x"},
    };
    for (const auto& args : commands) {
        auto run = cluster.run(args);
        INFO(kftrain::util::format_argv(args) << "\n" << run.err);
        CHECK(run.code == 2);
        CHECK(contains(run.err, "must be a Kubernetes object name"));
    }
    CHECK(cluster.calls().empty());
}

TEST_CASE("A full standard output is an error, not a silent success", "[cli]") {
    kftrain::util::SpawnOptions spawn;
    spawn.argv = {kftrain::test::kftrain_binary(), "render", "-f",
                  std::string(kftrain::test::source_dir()) + "/examples/mnist-local.yaml"};
    spawn.stdout_to = kftrain::util::Redirect::file("/dev/full");
    auto started = kftrain::util::Process::spawn(spawn);
    REQUIRE(started);
    auto& render = started.value();
    std::string err;
    char buffer[4096];
    for (ssize_t n; (n = ::read(render.stderr_fd(), buffer, sizeof buffer)) > 0;) {
        err.append(buffer, static_cast<size_t>(n));
    }
    auto ended = render.wait();
    REQUIRE(ended);
    INFO(err);
    CHECK(ended->code == 1);
    CHECK(contains(err, "cannot write to standard output: No space left on device"));
}

TEST_CASE("delete against a kubectl that never answers costs one deadline, not two",
          "[kube][cli]") {
    FakeCluster cluster("kubectl-hangs");
    auto run = cluster.run({"delete", "mnist-ddp", "--request-timeout", "1s"});
    INFO(run.err);
    CHECK(run.code == 4);
    CHECK(contains(run.err, "did not finish within 6s"));
    CHECK(cluster.calls().size() == 1);  // the lookup; no second one after its deadline
}

TEST_CASE("A Kueue visibility API that never answers is asked once, not once per version",
          "[kube][kueue][cli]") {
    FakeCluster cluster("kueue-visibility-hangs");
    auto run = cluster.run({"status", "mnist-ddp", "-n", "ml-training", "--request-timeout", "1s"});
    INFO(run.err);
    CHECK(run.code == 0);
    CHECK(contains(run.out, "mnist-ddp"));
    int raw_calls = 0;
    for (const auto& call : cluster.calls()) {
        raw_calls += std::count(call.begin(), call.end(), "--raw") > 0 ? 1 : 0;
    }
    CHECK(raw_calls == 1);
}
