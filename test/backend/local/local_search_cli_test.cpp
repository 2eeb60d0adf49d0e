// `kftrain tune --local` as a user runs it, with a stand-in for kftrain-trainer: a rerun never
// resumes an earlier run's checkpoints, SIGTERM and SIGHUP stop the trials as Ctrl-C does,
// `tune delete` stops every trial before it returns, and one name runs once at a time.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>

#include "backend/local/local_fixture.h"
#include "job/exit_codes.h"
#include "search/search_store.h"
#include "support/cli_runner.h"
#include "support/paths.h"
#include "util/run.h"
#include "util/subprocess.h"

using namespace kftrain;
using kftrain::test::LocalJobs;

namespace {

namespace fs = std::filesystem;

constexpr auto k_search_poll = std::chrono::milliseconds(20);
constexpr auto k_deadline = std::chrono::minutes(2);

// A stand-in for kftrain-trainer. It prints its lr as its accuracy; with --checkpoint-dir it
// first "resumes": a checkpoint there holds an accuracy, which it prints instead, as the
// trainer reports a finished run's result. With --epochs 1000 it then runs until a signal
// ends it. Every start writes "PID TICKS" to a file of pids/.
// clang-format off
constexpr const char* k_fake_trainer = R"sh(#!/bin/sh
lr=0 ckpt= epochs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --lr) lr=$2; shift ;;
    --checkpoint-dir) ckpt=$2; shift ;;
    --epochs) epochs=$2; shift ;;
  esac
  shift
done
echo "$$ $(cut -d' ' -f22 /proc/$$/stat)" > "PIDS/$$"
if [ -n "$ckpt" ] && [ -f "$ckpt/accuracy" ]; then
  echo "accuracy=$(cat "$ckpt/accuracy")"
  exit 0
fi
if [ -n "$ckpt" ]; then mkdir -p "$ckpt" && echo "$lr" > "$ckpt/accuracy"; fi
if [ "$epochs" = 1000 ]; then exec sleep 1000; fi
echo "accuracy=$lr"
)sh";
// clang-format on

// A test's local state with a kftrain whose kftrain-trainer is the stand-in: a copy of the
// built kftrain beside it (local jobs run the kftrain-trainer beside kftrain): a hard link,
// since kftrain finds its directory through /proc/self/exe.
class FakeTrainerSearch {
  public:
    FakeTrainerSearch() {
        fs::create_directories(bin());
        fs::create_directories(pids());
        std::error_code linked;
        fs::create_hard_link(kftrain::test::kftrain_binary(), bin() + "/kftrain", linked);
        if (linked) {
            fs::copy_file(kftrain::test::kftrain_binary(),
                          bin() + "/kftrain");  // another file system
        }
        std::string script = k_fake_trainer;
        script.replace(script.find("PIDS"), 4, pids());
        test::write_file(bin() + "/kftrain-trainer", script);
        ::chmod((bin() + "/kftrain-trainer").c_str(), 0755);
    }

    LocalJobs& jobs() { return m_jobs; }
    std::string bin() const { return m_jobs.dir() + "/bin"; }
    std::string pids() const { return m_jobs.dir() + "/pids"; }

    // Write a job file searching lr over space with trials of epochs.
    std::string job_file(const std::string& name, const std::string& space, int epochs,
                         int trials) {
        const std::string path = m_jobs.dir() + "/" + name + ".yaml";
        test::write_file(
            path, "name: " + name +
                      "\nreplicas: 1\nrestartPolicy: Never\nrunPolicy:\n  backoffLimit: "
                      "0\ntrainer:\n  epochs: " +
                      std::to_string(epochs) + "\n  checkpointDir: " + m_jobs.dir() +
                      "/ckpt\ntune:\n  params:\n    lr: " + space +
                      "\n  objective: accuracy\n  maxTrials: " + std::to_string(trials) +
                      "\n  parallel: " + std::to_string(trials) + "\n  maxFailedTrials: 0\n");
        return path;
    }

    // Run the copied kftrain to its end.
    test::CliRun kftrain(const std::vector<std::string>& args) {
        util::RunOptions options;
        options.argv = {bin() + "/kftrain"};
        options.argv.insert(options.argv.end(), args.begin(), args.end());
        options.env = {{"XDG_STATE_HOME", m_jobs.dir() + "/state"}};
        options.timeout = std::chrono::minutes(5);
        auto result = util::run(options);
        REQUIRE(result.ok());
        return test::CliRun{result->status.as_shell_code(), result->out, result->err};
    }

    // Start the copied kftrain in a session of its own (output to files named by tag).
    util::Process start(const std::vector<std::string>& args, const std::string& tag) {
        util::SpawnOptions options;
        options.argv = {bin() + "/kftrain"};
        options.argv.insert(options.argv.end(), args.begin(), args.end());
        options.env = {{"XDG_STATE_HOME", m_jobs.dir() + "/state"}};
        options.stdout_to = util::Redirect::file(m_jobs.dir() + "/" + tag + ".out");
        options.stderr_to = util::Redirect::file(m_jobs.dir() + "/" + tag + ".err");
        options.new_session = true;
        auto spawned = util::Process::spawn(options);
        REQUIRE(spawned.ok());
        return std::move(*spawned);
    }

    // Return what a started kftrain printed.
    std::string printed(const std::string& tag) {
        auto out = state::read_state_file(m_jobs.dir() + "/" + tag + ".out");
        auto err = state::read_state_file(m_jobs.dir() + "/" + tag + ".err");
        return (out ? *out : "") + "\n--- stderr:\n" + (err ? *err : "");
    }

    // Return the (pid, start ticks) of every stand-in trainer started so far.
    std::vector<std::pair<long long, unsigned long long>> trainers() {
        std::vector<std::pair<long long, unsigned long long>> found;
        for (const auto& entry : fs::directory_iterator(pids())) {
            std::ifstream in(entry.path());
            long long pid = 0;
            unsigned long long ticks = 0;
            if (in >> pid >> ticks) {
                found.emplace_back(pid, ticks);
            }
        }
        return found;
    }

    // Wait until n stand-in trainers run; fail after the deadline.
    void wait_trainers(size_t n, const std::function<std::string()>& printed) {
        auto deadline = std::chrono::steady_clock::now() + k_deadline;
        while (running_trainers() < n) {
            if (std::chrono::steady_clock::now() > deadline) {
                FAIL("the trials' trainers did not start in time\n" << printed());
            }
            std::this_thread::sleep_for(k_search_poll);
        }
    }

    size_t running_trainers() {
        size_t n = 0;
        for (const auto& [pid, ticks] : trainers()) {
            n += util::process_alive(pid, ticks) ? 1 : 0;
        }
        return n;
    }

  private:
    LocalJobs m_jobs;
};

// Wait until no stand-in trainer runs; fail after the deadline.
void check_trainers_end(FakeTrainerSearch& bench) {
    auto deadline = std::chrono::steady_clock::now() + k_deadline;
    while (bench.running_trainers() > 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(k_search_poll);
    }
    CHECK(bench.running_trainers() == 0);
}

}  // namespace

TEST_CASE("a local search run again never resumes the earlier run's trial checkpoints",
          "[search][local][cli]") {
    FakeTrainerSearch bench;
    auto first =
        bench.kftrain({"tune", "-f", bench.job_file("rerun", "0.001:0.002", 1, 2), "--local"});
    INFO(first.out << first.err);
    REQUIRE(first.code == k_exit_ok);

    // Without --replace the rerun is refused and the earlier record stays.
    const std::string again = bench.job_file("rerun", "0.5:0.9", 1, 2);
    auto refused = bench.kftrain({"tune", "-f", again, "--local"});
    CHECK(refused.code == k_exit_bad_input);
    CHECK(refused.err.rfind("kftrain: error: search rerun exists on this machine (Succeeded, 2 "
                            "trials); run again with --replace",
                            0) == 0);
    REQUIRE(search::read_search("rerun").ok());

    // With it, each trial reports its own lr (0.5 to 0.9), none the first run's (0.001 to
    // 0.002) from a checkpoint directory of the same name.
    auto second = bench.kftrain({"tune", "-f", again, "--local", "--replace"});
    INFO(second.out << second.err);
    REQUIRE(second.code == k_exit_ok);
    auto record = search::read_search("rerun");
    REQUIRE(record.ok());
    REQUIRE(record->status.trials.size() == 2);
    for (const auto& trial : record->status.trials) {
        INFO(trial.name);
        REQUIRE(trial.objective.has_value());
        CHECK(*trial.objective >= 0.5);
        CHECK(*trial.objective == std::stod(trial.params.at(0).second));
    }
}

TEST_CASE("SIGTERM and SIGHUP stop a local search and its trials as Ctrl-C does",
          "[search][local][cli]") {
    const int signal = GENERATE(SIGTERM, SIGHUP);
    const std::string name = signal == SIGTERM ? "sigterm" : "sighup";
    INFO(name);
    FakeTrainerSearch bench;
    kftrain::test::Reaped tune{
        bench.start({"tune", "-f", bench.job_file(name, "0.1:0.2", 1000, 2), "--local"}, name)};
    auto printed = [&] { return bench.printed(name); };
    bench.wait_trainers(2, printed);

    ::kill(tune.process.pid(), signal);  // to kftrain alone, as a CI runner or a hangup does
    auto ended = test::wait_exit(tune.process, k_deadline, printed);
    INFO(printed());
    CHECK(ended.signal == 0);
    CHECK(ended.code == k_exit_interrupted);
    check_trainers_end(bench);
    auto record = search::read_search(name);
    REQUIRE(record.ok());
    CHECK(record->status.phase == "Interrupted");
    CHECK(record->status.message == std::string("stopped by ") +
                                        (signal == SIGTERM ? "SIGTERM" : "SIGHUP") +
                                        "; its running trials were killed");
}

TEST_CASE("tune delete of a running local search stops every trial before it returns",
          "[search][local][cli]") {
    FakeTrainerSearch bench;
    kftrain::test::Reaped tune{bench.start(
        {"tune", "-f", bench.job_file("doomed", "0.1:0.2", 1000, 3), "--local"}, "doomed")};
    auto printed = [&] { return bench.printed("doomed"); };
    bench.wait_trainers(3, printed);

    auto deleted = bench.kftrain({"tune", "delete", "doomed", "--local"});
    INFO(deleted.out << deleted.err << printed());
    CHECK(deleted.code == k_exit_ok);
    CHECK(deleted.out == "search doomed deleted, with its trials' jobs\n");
    // Already when delete returns: no trainer runs, no trial's job or record is left.
    CHECK(bench.running_trainers() == 0);
    CHECK(backend::local::job_names().empty());
    CHECK_FALSE(fs::exists(search::search_path("doomed")));
    auto ended = test::wait_exit(tune.process, k_deadline, printed);
    CHECK(ended.code == k_exit_interrupted);
}

TEST_CASE("two local searches of one name started at once: exactly one runs",
          "[search][local][cli]") {
    FakeTrainerSearch bench;
    const std::string file = bench.job_file("twice", "0.1:0.2", 1000, 2);
    kftrain::test::Reaped a{bench.start({"tune", "-f", file, "--local"}, "a")};
    kftrain::test::Reaped b{bench.start({"tune", "-f", file, "--local"}, "b")};
    auto printed = [&] { return bench.printed("a") + "\n=== b:\n" + bench.printed("b"); };

    // One of them is refused (exit 2); the other goes on running its trials.
    auto deadline = std::chrono::steady_clock::now() + k_deadline;
    std::optional<util::ExitStatus> ended_a, ended_b;
    while (!(ended_a = a.process.try_wait()) && !(ended_b = b.process.try_wait())) {
        if (std::chrono::steady_clock::now() > deadline) {
            FAIL("neither search was refused in time\n" << printed());
        }
        std::this_thread::sleep_for(k_search_poll);
    }
    INFO(printed());
    kftrain::test::Reaped& survivor = ended_a ? b : a;
    const std::string refused_tag = ended_a ? "a" : "b";
    const util::ExitStatus refused = ended_a ? *ended_a : *ended_b;
    CHECK(refused.code == k_exit_bad_input);
    auto err = state::read_state_file(bench.jobs().dir() + "/" + refused_tag + ".err");
    REQUIRE(err.ok());
    CHECK(err->rfind("kftrain: error: search twice is already running on this machine", 0) == 0);
    bench.wait_trainers(2, printed);
    CHECK_FALSE(survivor.process.try_wait().has_value());
    CHECK(bench.trainers().size() == 2);  // the refused one started none

    auto deleted = bench.kftrain({"tune", "delete", "twice", "--local"});
    CHECK(deleted.code == k_exit_ok);
    CHECK(bench.running_trainers() == 0);
    test::wait_exit(survivor.process, k_deadline, printed);
}
