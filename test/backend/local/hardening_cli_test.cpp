// End-to-end tests of what a hostile user found in the local backend: racing submits, a
// corrupt state.json, a state that cannot be written, a killed supervisor, and secrets.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "backend/local/local_fixture.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/subprocess.h"

using namespace kftrain;

namespace fs = std::filesystem;
namespace job = kftrain::job;
namespace local = kftrain::backend::local;
using kftrain::test::LocalJobs;

namespace {

// Return the pids the fake replicas wrote to dir (--pid-dir).
std::vector<long long> started_pids(const std::string& dir) {
    std::vector<long long> pids;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() == ".pid") {
            pids.push_back(std::stoll(entry.path().stem().string()));
        }
    }
    return pids;
}

// Poll until pred holds; fail after the deadline.
void poll_until(const std::function<bool()>& pred, const char* what) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!pred()) {
        if (std::chrono::steady_clock::now() > deadline) {
            FAIL("timed out waiting until " << what);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

// Return whether any process of pids (fake replicas; they hold no pipe) still runs.
bool any_alive(const std::vector<long long>& pids) {
    for (long long pid : pids) {
        if (util::process_alive(pid)) {
            return true;
        }
    }
    return false;
}

kftrain::util::Process start_submit(LocalJobs& jobs, const std::string& file) {
    kftrain::util::SpawnOptions options;
    options.argv = {kftrain::test::kftrain_binary(), "submit", "-f", file, "--local"};
    options.env = {{"XDG_STATE_HOME", jobs.dir() + "/state"}};
    options.stdout_to = kftrain::util::Redirect::file(jobs.dir() + "/submit.out");
    options.stderr_to = kftrain::util::Redirect::file(jobs.dir() + "/submit.err");
    auto process = kftrain::util::Process::spawn(options);
    REQUIRE(process.ok());
    return std::move(*process);
}

}  // namespace

TEST_CASE("two submits of one name at once start one job and refuse the other", "[local]") {
    LocalJobs jobs;
    fs::create_directories(jobs.dir() + "/pids");
    auto file = jobs.job_file("race", 2, {"--hold-rank", "-1", "--pid-dir", jobs.dir() + "/pids"});
    auto first = start_submit(jobs, file);
    auto second = start_submit(jobs, file);
    int a = first.wait()->as_shell_code();
    int b = second.wait()->as_shell_code();
    CHECK(std::min(a, b) == 0);
    CHECK(std::max(a, b) == 2);
    std::string err = kftrain::test::read_bytes(jobs.dir() + "/submit.err");
    CHECK(err.find("kftrain: error: job race is already running on this machine; delete it or "
                   "submit with --replace\n") != std::string::npos);
    CHECK(kftrain::test::read_bytes(jobs.dir() + "/submit.out") == "job race started (local)\n");

    jobs.wait_for("race", test::all_replicas_running);
    poll_until([&] { return started_pids(jobs.dir() + "/pids").size() >= 2; }, "2 replicas run");
    auto pids = started_pids(jobs.dir() + "/pids");
    CHECK(pids.size() == 2);  // one job of two replicas, no second supervisor's

    REQUIRE(jobs.kftrain({"delete", "race", "--local"}).code == 0);
    CHECK_FALSE(any_alive(pids));
}

TEST_CASE("a corrupt state.json is listed, blocks a submit, and delete --force removes it",
          "[local]") {
    LocalJobs jobs;
    fs::create_directories(jobs.dir() + "/pids");
    auto file = jobs.job_file(
        "broken", 2, {"--steps", "0", "--hold-rank", "-1", "--pid-dir", jobs.dir() + "/pids"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("broken", test::all_replicas_running);
    auto pids = started_pids(jobs.dir() + "/pids");
    REQUIRE(pids.size() == 2);
    auto doc =
        nlohmann::json::parse(kftrain::test::read_bytes(backend::local::state_path("broken")));
    doc["replicas"][1]["pid"] = "not-a-pid";
    kftrain::test::write_file(backend::local::state_path("broken"), doc.dump(2));

    const std::string why =
        "state.json of job broken: field 'replicas[1].pid' is not a number; remove the job "
        "with: kftrain delete broken --local --force";
    auto listed = jobs.kftrain({"list", "--local"});
    CHECK(listed.code == 0);
    CHECK(listed.out.find("broken") != std::string::npos);
    CHECK(listed.out.find("Unknown") != std::string::npos);
    CHECK(listed.err == "kftrain: warning: " + why + "\n");

    auto status = jobs.kftrain({"status", "broken", "--local"});
    CHECK(status.code == 4);
    CHECK(status.err == "kftrain: error: " + why + "\n");

    auto again = jobs.kftrain({"submit", "-f", file, "--local", "--replace"});
    CHECK(again.code == 2);
    CHECK(again.err ==
          "kftrain: error: job broken exists on this machine and cannot be "
          "replaced: " +
              why + "\n");
    CHECK(started_pids(jobs.dir() + "/pids").size() == 2);  // nothing started over it

    auto deleted = jobs.kftrain({"delete", "broken", "--local"});
    CHECK(deleted.code == 4);
    CHECK(deleted.err.find("kftrain delete broken --local --force") != std::string::npos);
    CHECK(any_alive(pids));

    auto forced = jobs.kftrain({"delete", "broken", "--local", "--force"});
    CHECK(forced.code == 0);
    CHECK(forced.out == "broken deleted\n");
    CHECK_FALSE(any_alive(pids));  // the supervisor, identified, stopped both replicas
    CHECK_FALSE(fs::exists(backend::local::job_dir("broken")));
    CHECK(jobs.kftrain({"delete", "nothing-here", "--local", "--force"}).code == 3);
}

TEST_CASE("a job that ends while its state cannot be written says why, not SupervisorLost",
          "[local]") {
    LocalJobs jobs;
    const std::string release = jobs.dir() + "/release";
    auto file = jobs.job_file("unsaved", 2, {"--steps", "0", "--hold-file", release});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("unsaved", test::all_replicas_running);
    auto state = backend::local::read_job_state("unsaved");
    REQUIRE(state.ok());
    // The supervisor writes state.json.tmp.PID and renames it: a directory there makes every
    // later write of state.json fail, as a full disk would.
    fs::create_directories(backend::local::state_path("unsaved") + ".tmp." +
                           std::to_string(state->supervisor_pid));
    kftrain::test::write_file(release, "go\n");

    poll_until([&] { return !backend::local::supervisor_alive(*state); }, "the supervisor ends");
    auto status = jobs.backend().status("unsaved");
    REQUIRE(status.ok());
    CHECK(status->phase == job::JobPhase::Succeeded);
    CHECK(status->reason == "PyTorchJobSucceeded");
    REQUIRE(status->diagnosis.size() == 1);
    CHECK(status->diagnosis[0] ==
          "kftrain could not save the job's end in its state: cannot "
          "write " +
              backend::local::state_path("unsaved") +
              ": Is a directory; the replicas show their state as last "
              "saved");
    auto shown = jobs.kftrain({"status", "unsaved", "--local"});
    CHECK(shown.out.find("cannot write " + backend::local::state_path("unsaved") +
                         ": Is a directory") != std::string::npos);
    CHECK(shown.out.find("SupervisorLost") == std::string::npos);
    CHECK(jobs.kftrain({"wait", "unsaved", "--local", "--timeout", "10s"}).code == 0);
}

TEST_CASE(
    "with its supervisor killed, a job's running replicas show Running and delete stops "
    "them",
    "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("orphans", 2, {"--steps", "0", "--hold-rank", "-1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    job::JobStatus running = jobs.wait_for("orphans", test::all_replicas_running);
    auto state = backend::local::read_job_state("orphans");
    REQUIRE(state.ok());
    ::kill(static_cast<pid_t>(state->supervisor_pid), SIGKILL);
    poll_until([&] { return !backend::local::supervisor_alive(*state); }, "the supervisor is gone");

    auto status = jobs.backend().status("orphans");
    REQUIRE(status.ok());
    CHECK(status->phase == job::JobPhase::Running);
    CHECK(status->reason == "SupervisorLost");
    REQUIRE(status->replicas.size() == 2);
    for (const auto& replica : status->replicas) {
        CHECK(replica.state == "Running");
        CHECK(util::process_alive(replica.pid));
    }
    auto shown = jobs.kftrain({"status", "orphans", "--local"});
    CHECK(shown.code == 0);
    CHECK(shown.out.find("2 of 2 replicas still run, unsupervised") != std::string::npos);

    REQUIRE(jobs.kftrain({"delete", "orphans", "--local"}).code == 0);
    for (const auto& replica : running.replicas) {
        CHECK_FALSE(util::process_alive(replica.pid));
    }
}

TEST_CASE(
    "local replicas get a clean environment, a Secret's variable only from the shell "
    "by name",
    "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("clean-env", 2, {"--steps", "1", "--env-out", jobs.dir()},
                              "env:\n  FAKE_USER_VAR: hello\n  FAKE_SECRET:\n    secretKeyRef: "
                              "{name: creds, key: token}\n");
    std::map<std::string, std::string> shell = {{"XDG_STATE_HOME", jobs.dir() + "/state"},
                                                {"FAKE_SECRET", "from-the-shell"},
                                                {"FAKE_SHELL_ONLY", "leaks?"}};
    auto plain = kftrain::test::run_kftrain({"submit", "-f", file, "--local"}, shell);
    REQUIRE(plain.code == 0);
    CHECK(plain.err.find("kftrain: note: variables from Secrets and other references are not "
                         "set locally: FAKE_SECRET (pass one from your shell with "
                         "--env-from-shell NAME)\n") != std::string::npos);
    CHECK(jobs.wait_finished("clean-env").phase == job::JobPhase::Succeeded);
    std::string env = kftrain::test::read_bytes(jobs.dir() + "/rank-1.env");
    CHECK(env.find("FAKE_USER_VAR=hello\n") != std::string::npos);
    CHECK(env.find("FAKE_SECRET=\n") != std::string::npos);
    CHECK(env.find("FAKE_SHELL_ONLY=\n") != std::string::npos);
    CHECK(env.find("HOME=\n") == std::string::npos);  // HOME passes
    CHECK(env.find("RANK=1\n") != std::string::npos);

    auto passed = kftrain::test::run_kftrain(
        {"submit", "-f", file, "--local", "--env-from-shell", "FAKE_SECRET"}, shell);
    REQUIRE(passed.code == 0);
    CHECK(passed.err.find("kftrain: note: passed from your shell (--env-from-shell): "
                          "FAKE_SECRET\n") != std::string::npos);
    CHECK(jobs.wait_finished("clean-env").phase == job::JobPhase::Succeeded);
    env = kftrain::test::read_bytes(jobs.dir() + "/rank-1.env");
    CHECK(env.find("FAKE_SECRET=from-the-shell\n") != std::string::npos);
    CHECK(
        kftrain::test::read_bytes(backend::local::state_path("clean-env")).find("from-the-shell") ==
        std::string::npos);

    auto unset = jobs.kftrain({"submit", "-f", file, "--local", "--env-from-shell", "NOT_SET_X"});
    CHECK(unset.code == 2);
    CHECK(unset.err == "kftrain: error: --env-from-shell: NOT_SET_X is not set in this shell\n");
    CHECK(jobs.kftrain({"submit", "-f", file, "--local", "--env-from-shell", "A-B"}).code == 2);
}

TEST_CASE("a local job's files are private and a tracking URI's credentials never show",
          "[local]") {
    LocalJobs jobs;
    auto file =
        jobs.job_file("private", 2, {"--steps", "1", "--env-out", jobs.dir()},
                      "mlflow:\n  trackingUri: http://ann:hunter2@mlflow:5000/?token=t0k\n");
    auto submitted = jobs.kftrain({"submit", "-f", file, "--local"});
    REQUIRE(submitted.code == 0);
    CHECK(submitted.err.find("hunter2") == std::string::npos);
    CHECK(jobs.wait_finished("private").phase == job::JobPhase::Succeeded);

    const std::string dir = backend::local::job_dir("private");
    for (const auto& path : {dir, dir + "/logs"}) {
        INFO(path);
        CHECK((fs::status(path).permissions() & fs::perms::all) == fs::perms::owner_all);
    }
    for (const auto& path : {dir + "/state.json", dir + "/supervisor.log", dir + "/logs/all.log",
                             dir + "/logs/master-0.log"}) {
        INFO(path);
        CHECK((fs::status(path).permissions() & fs::perms::all) ==
              (fs::perms::owner_read | fs::perms::owner_write));
    }
    CHECK_FALSE(fs::exists(backend::local::launch_path("private")));  // read and removed
    std::string state = kftrain::test::read_bytes(backend::local::state_path("private"));
    CHECK(state.find("hunter2") == std::string::npos);
    CHECK(state.find("t0k") == std::string::npos);
    CHECK(state.find("http://***@mlflow:5000/?token=***") != std::string::npos);
    for (const char* verb : {"status", "describe", "list"}) {
        INFO(verb);
        auto shown = verb == std::string("list") ? jobs.kftrain({"list", "--local", "-o", "json"})
                                                 : jobs.kftrain({verb, "private", "--local"});
        CHECK(shown.code == 0);
        CHECK(shown.out.find("hunter2") == std::string::npos);
    }
    // The replica itself gets the real URI.
    CHECK(kftrain::test::read_bytes(jobs.dir() + "/rank-0.env")
              .find("MLFLOW_TRACKING_URI=http://ann:hunter2@mlflow:5000/?token=t0k\n") !=
          std::string::npos);
}

TEST_CASE("a job whose logs cannot be written says so in status", "[local][cli]") {
    LocalJobs jobs;
    const std::string go = jobs.dir() + "/go";
    const std::string file = jobs.dir() + "/full.yaml";
    test::write_file(file, "name: full-logs\ncommand: [sh, -c, 'while [ ! -e \"" + go +
                               "\" ]; do sleep 0.05; done; echo one; echo two']\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    // Before the replica prints its first line, its log is a full disk.
    const std::string log = local::logs_dir("full-logs") + "/master-0.log";
    poll_until([&] { return fs::is_directory(local::logs_dir("full-logs")); }, "the logs exist");
    fs::create_symlink("/dev/full", log);
    test::write_file(go, "");
    const auto done = jobs.wait_finished("full-logs");
    CHECK(done.phase == job::JobPhase::Succeeded);  // the program did succeed
    const auto status = jobs.kftrain({"status", "full-logs", "--local"});
    CHECK(status.out.find("the job's logs are incomplete: cannot write " + log +
                          ": No space left on device; what the replicas printed after that is "
                          "lost") != std::string::npos);
}

TEST_CASE("what a replica leaves running with setsid ends with the job, and with delete",
          "[local][cli]") {
    LocalJobs jobs;
    // A daemon the way programs make them: fork, a session of its own, the parent gone.
    auto daemon_job = [&](const std::string& name, const std::string& then) {
        const std::string file = jobs.dir() + "/" + name + ".yaml";
        test::write_file(file, "name: " + name +
                                   "\ncommand: [sh, -c, 'setsid sh -c \"sleep 300 "
                                   "& echo \\$! > " +
                                   jobs.dir() + "/" + name + ".pid\"; " + then + "']\n");
        REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
        const std::string pid_file = jobs.dir() + "/" + name + ".pid";
        long long pid = 0;
        poll_until([&] { return (std::ifstream(pid_file) >> pid) && pid > 0; }, "the daemon ran");
        return pid;
    };
    const long long left = daemon_job("leaves-daemon", "true");
    CHECK(jobs.wait_finished("leaves-daemon").phase == job::JobPhase::Succeeded);
    poll_until([&] { return !util::process_alive(left); }, "the job's daemon is gone");

    const long long running = daemon_job("runs-daemon", "exec sleep 300");
    REQUIRE(util::process_alive(running));
    CHECK(jobs.kftrain({"delete", "runs-daemon", "--local"}).code == 0);
    poll_until([&] { return !util::process_alive(running); }, "the deleted job's daemon is gone");
}

TEST_CASE("what a replica's run leaves running with setsid ends before the replica restarts",
          "[local][cli]") {
    LocalJobs jobs;
    const std::string dir = jobs.dir();
    // The first run leaves a daemon and fails; the restarted run reports whether the daemon
    // is still there (for at most 30 s), as a container's restart would have ended it.
    const std::string script =
        "if [ ! -e " + dir + "/first ]; then touch " + dir + "/first; setsid sh -c \"sleep 300 " +
        "& echo \\$! > " + dir + "/daemon.pid\"; exit 1; fi; i=0; while kill -0 $(cat " + dir +
        "/daemon.pid) 2>/dev/null; do i=$((i+1)); if [ $i -gt 600 ]; then echo daemon still "
        "running; exit 3; fi; sleep 0.05; done; echo daemon gone";
    const std::string file = dir + "/restarts.yaml";
    test::write_file(file,
                     "name: restarts-daemon\nreplicas: 1\nrestartPolicy: OnFailure\n"
                     "runPolicy:\n  backoffLimit: 2\ncommand: [sh, -c, '" +
                         script + "']\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    CHECK(jobs.wait_finished("restarts-daemon").phase == job::JobPhase::Succeeded);
    const auto lines = jobs.log_lines("restarts-daemon");
    CHECK(std::find(lines.begin(), lines.end(), "master-0 | daemon gone") != lines.end());
    long long pid = 0;
    REQUIRE((std::ifstream(dir + "/daemon.pid") >> pid));
    CHECK_FALSE(util::process_alive(pid));
}

TEST_CASE("a line past 64 KiB is kept cut, marked, and counted once by logs --tail",
          "[local][cli]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/long.yaml";
    // 200,000 bytes without a newline, then a newline, then a short line.
    test::write_file(
        file,
        "name: long-line\nreplicas: 1\ncommand: [sh, -c, 'head -c 200000 /dev/zero | tr "
        "\"\\\\0\" x; echo; echo after']\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    CHECK(jobs.wait_finished("long-line").phase == job::JobPhase::Succeeded);
    const std::string cut = "master-0 | " + std::string(64 * 1024, 'x') +
                            " [kftrain: line cut at 64 KiB]\nmaster-0 | after\n";
    for (const char* tail : {"2", "2000"}) {
        const auto logs = jobs.kftrain({"logs", "long-line", "--local", "--tail", tail});
        CHECK(logs.code == 0);
        CHECK(logs.out == cut);
    }
    CHECK(jobs.kftrain({"logs", "long-line", "--local", "--tail", "1"}).out ==
          "master-0 | after\n");
}
