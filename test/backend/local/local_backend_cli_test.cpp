// End-to-end tests of the local backend: real supervisors and replica
// processes (the fake replica), each test with its own state directory.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "backend/local/local_fixture.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/subprocess.h"

using namespace kftrain;

using kftrain::job::JobPhase;
using kftrain::job::JobStatus;
using kftrain::test::contains_line;
using kftrain::test::LocalJobs;

namespace job = kftrain::job;

TEST_CASE("a 2-replica local job succeeds and status, logs and list show it", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("two-ok", 2,
                              {"--steps", "3", "--env-out", jobs.dir(), "--wait-peers", jobs.dir()},
                              "env:\n  FAKE_USER_VAR: hello\nresources:\n  cpu: 1\n  "
                              "memory: 512Mi\n");
    auto submitted = jobs.kftrain({"submit", "-f", file, "--local"});
    REQUIRE(submitted.code == 0);
    CHECK(submitted.out == "job two-ok started (local)\n");

    job::JobStatus status = jobs.wait_finished("two-ok");
    CHECK(status.phase == job::JobPhase::Succeeded);
    CHECK(status.backend == "local");
    REQUIRE(status.replicas.size() == 2);
    CHECK(status.replicas[0].name == "master-0");
    CHECK(status.replicas[0].state == "Succeeded");
    CHECK(status.replicas[1].name == "worker-0");
    CHECK(status.replicas[1].state == "Succeeded");
    CHECK(status.replicas[1].exit_code == 0);
    REQUIRE(status.progress.has_value());
    CHECK(status.progress->event == "finish");

    auto lines = jobs.log_lines("two-ok");
    CHECK(contains_line(lines, R"(master-0 | {"event":"start","rank":0,"world_size":2)"));
    CHECK(contains_line(lines, R"(worker-0 | {"event":"start","rank":1,"world_size":2)"));
    CHECK(contains_line(lines, R"(master-0 | {"event":"progress")"));

    kftrain::job::LogOptions tail;
    tail.tail = 1;
    auto last = jobs.log_lines("two-ok", tail);
    REQUIRE(last.size() == 2);
    CHECK(contains_line(last, R"(master-0 | {"event":"finish")"));

    kftrain::job::LogOptions workers;
    workers.replica = "worker";
    for (const auto& line : jobs.log_lines("two-ok", workers)) {
        CHECK(line.rfind("worker-0 | ", 0) == 0);
    }

    auto listed = jobs.backend().list(false);
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 1);
    CHECK((*listed)[0].name == "two-ok");
    CHECK((*listed)[0].phase == job::JobPhase::Succeeded);

    auto shown = jobs.kftrain({"status", "two-ok", "--local"});
    CHECK(shown.code == 0);
    CHECK(shown.out.find(" if run on the cluster: 2 replicas x $0.0337/h each (1 core, 0.5 "
                         "GiB), built-in prices\n") != std::string::npos);

    auto described = jobs.kftrain({"describe", "two-ok", "--local"});
    CHECK(described.code == 0);
    CHECK(described.out.find(std::string("    Command:   ") + kftrain::test::fake_replica() +
                             " --steps 3") != std::string::npos);
    CHECK(described.out.find("    Exit code: 0\n") != std::string::npos);
    CHECK(described.out.find("      WORLD_SIZE=2\n") != std::string::npos);

    std::string worker_env = kftrain::test::read_bytes(jobs.dir() + "/rank-1.env");
    CHECK(worker_env.find("RANK=1\n") != std::string::npos);
    CHECK(worker_env.find("WORLD_SIZE=2\n") != std::string::npos);
    CHECK(worker_env.find("MASTER_ADDR=127.0.0.1\n") != std::string::npos);
    CHECK(worker_env.find("PET_NODE_RANK=1\n") != std::string::npos);
    CHECK(worker_env.find("PET_NNODES=2\n") != std::string::npos);
    CHECK(worker_env.find("FAKE_USER_VAR=hello\n") != std::string::npos);
}

TEST_CASE("a worker exiting 1 with restartPolicy Never fails the job and stops the master",
          "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("never-fails", 2, {"--hold-rank", "0", "--fail-rank", "1"},
                              "restartPolicy: Never\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);

    job::JobStatus status = jobs.wait_finished("never-fails");
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.reason == "PyTorchJobFailed");
    CHECK(status.message == "worker-0 exited with code 1 (restartPolicy Never)");
    REQUIRE(status.replicas.size() == 2);
    CHECK(status.replicas[1].state == "Failed");
    CHECK(status.replicas[1].exit_code == 1);
    CHECK(status.replicas[0].state == "Terminated");
    CHECK_FALSE(kftrain::util::process_alive(status.replicas[0].pid));
    CHECK(contains_line(jobs.log_lines("never-fails"),
                        "worker-0 | fake-replica: rank 1 failing with code 1"));
}

TEST_CASE("replicas that fail on their own as the job stops are Failed, not Stopped", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("all-fail", 3, {"--fail-rank", "-1"}, "restartPolicy: Never\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);

    job::JobStatus status = jobs.wait_finished("all-fail");
    CHECK(status.phase == job::JobPhase::Failed);
    REQUIRE(status.replicas.size() == 3);
    int failed = 0;
    for (const auto& replica : status.replicas) {
        INFO(replica.name << " " << replica.state << " " << replica.reason);
        REQUIRE(replica.exit_code);
        // Exit 1 is the replica's own failure, whenever it came: Failed, or Terminated where
        // the supervisor's SIGTERM crossed it; only an exit by that signal (143) is Stopped.
        if (*replica.exit_code == 1) {
            ++failed;
            CHECK((replica.state == "Failed" || replica.state == "Terminated"));
            CHECK(replica.reason == "Error");
        } else {
            CHECK(*replica.exit_code == 143);
            CHECK(replica.reason == "Stopped");
        }
    }
    CHECK(failed >= 1);
}

TEST_CASE("OnFailure with backoffLimit 2 restarts a worker that fails once and succeeds",
          "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("retry-ok", 2,
                              {"--fail-rank", "1", "--fail-once", jobs.dir() + "/failed-once",
                               "--wait-peers", jobs.dir()},
                              "restartPolicy: OnFailure\nrunPolicy:\n  backoffLimit: 2\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);

    job::JobStatus status = jobs.wait_finished("retry-ok");
    CHECK(status.phase == job::JobPhase::Succeeded);
    REQUIRE(status.replicas.size() == 2);
    CHECK(status.replicas[1].restarts == 1);
    CHECK(status.replicas[1].state == "Succeeded");
    CHECK(status.replicas[0].restarts == 0);
    auto lines = jobs.log_lines("retry-ok");
    CHECK(contains_line(lines, "worker-0 | kftrain: worker-0 exited with code 1; restarting"));

    // --previous: the worker's failed attempt only; the master never restarted.
    auto previous = jobs.kftrain({"logs", "retry-ok", "--previous", "--raw", "--local"});
    CHECK(previous.code == 0);
    CHECK(previous.out.find("worker-0 | fake-replica: rank 1 failing with code 1\n") !=
          std::string::npos);
    CHECK(previous.out.find("master-0 |") == std::string::npos);
    CHECK(previous.err == "kftrain: master-0: has not restarted: no previous attempt\n");
    size_t starts = 0;
    for (size_t at = 0; (at = previous.out.find(R"("event":"start")", at)) != std::string::npos;
         ++at) {
        ++starts;
    }
    CHECK(starts == 1);  // the first attempt's start line, not the second's

    auto none = jobs.kftrain({"logs", "retry-ok", "--previous", "--replica", "master", "--local"});
    CHECK(none.code == 3);
    CHECK(none.err.find("kftrain: error: --previous: no replica of retry-ok matching master has "
                        "restarted\n") != std::string::npos);

    // A --replica that names none of the job's replicas is an error, as on a cluster.
    for (const char* wanted : {"worker-5", "chief", "node"}) {
        INFO(wanted);
        auto missing = jobs.kftrain({"logs", "retry-ok", "--replica", wanted, "--local"});
        CHECK(missing.code == 3);
        CHECK(missing.out.empty());
        CHECK(missing.err == std::string("kftrain: error: --replica: matches no replica of "
                                         "retry-ok by name or type; it has master-0, worker-0 "
                                         "(got ") +
                                 wanted + ")\n");
    }
}

TEST_CASE("a worker failing every time fails the job when backoffLimit is reached", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("retry-fails", 2, {"--hold-rank", "0", "--fail-rank", "1"},
                              "restartPolicy: OnFailure\nrunPolicy:\n  backoffLimit: 2\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);

    job::JobStatus status = jobs.wait_finished("retry-fails");
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.reason == "BackoffLimitExceeded");
    CHECK(status.replicas[1].restarts == 1);
    CHECK_FALSE(kftrain::util::process_alive(status.replicas[0].pid));
}

TEST_CASE("delete stops a running job and leaves no process behind", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("held", 3, {"--hold-rank", "-1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    job::JobStatus running = jobs.wait_for("held", test::all_replicas_running);
    auto state = kftrain::backend::local::read_job_state("held");
    REQUIRE(state.ok());
    std::vector<long long> pids{state->supervisor_pid};
    for (const auto& r : running.replicas) {
        pids.push_back(r.pid);
    }

    auto deleted = jobs.kftrain({"delete", "held", "--local"});
    CHECK(deleted.code == 0);

    for (long long pid : pids) {
        INFO("pid " << pid);
        CHECK_FALSE(kftrain::util::process_alive(pid));
    }
    CHECK_FALSE(std::filesystem::exists(kftrain::backend::local::job_dir("held")));
    auto gone = jobs.backend().status("held");
    REQUIRE_FALSE(gone.ok());
    CHECK(gone.error_code(0) == 3);
    CHECK(jobs.kftrain({"status", "held", "--local"}).code == 3);
}

TEST_CASE("wait --local returns 5 when the job is still running at the timeout", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("slow", 2, {"--hold-rank", "-1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_for("slow", test::all_replicas_running);
    auto waited = jobs.kftrain({"wait", "slow", "--local", "--timeout", "1s"});
    CHECK(waited.code == 5);
    CHECK(jobs.backend().status("slow")->phase == job::JobPhase::Running);
}

TEST_CASE("wait --local returns 0 for a Succeeded job and 1 for a Failed one", "[local]") {
    LocalJobs jobs;
    auto ok = jobs.job_file("wait-ok", 2, {"--steps", "1"});
    auto bad = jobs.job_file("wait-bad", 2, {"--hold-rank", "0", "--fail-rank", "1"},
                             "restartPolicy: Never\n");
    REQUIRE(jobs.kftrain({"submit", "-f", ok, "--local"}).code == 0);
    REQUIRE(jobs.kftrain({"submit", "-f", bad, "--local"}).code == 0);
    CHECK(jobs.kftrain({"wait", "wait-ok", "--local", "--timeout", "60s"}).code == 0);
    CHECK(jobs.kftrain({"wait", "wait-bad", "--local", "--timeout", "60s"}).code == 1);
}

TEST_CASE("a second submit of a running name is refused unless --replace", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("twice", 2, {"--hold-rank", "-1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    job::JobStatus first = jobs.wait_for("twice", test::all_replicas_running);

    auto again = jobs.kftrain({"submit", "-f", file, "--local"});
    CHECK(again.code == 2);
    CHECK(again.err ==
          "kftrain: error: job twice is already running on this machine; delete it or submit "
          "with --replace\n");
    CHECK(jobs.backend().status("twice")->replicas[0].pid == first.replicas[0].pid);

    auto replaced = jobs.kftrain({"submit", "-f", file, "--local", "--replace"});
    CHECK(replaced.code == 0);
    CHECK_FALSE(kftrain::util::process_alive(first.replicas[0].pid));
    job::JobStatus second = jobs.wait_for("twice", test::all_replicas_running);
    CHECK(second.replicas[0].pid != first.replicas[0].pid);
}

TEST_CASE("a running job stays Running until it ends", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("held-status", 2, {"--hold-rank", "-1"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    job::JobStatus status = jobs.wait_for("held-status", test::all_replicas_running);
    CHECK_FALSE(kftrain::job::is_finished(status.phase));
    CHECK(status.counts["Master"].active == 1);
    CHECK(status.counts["Worker"].active == 1);
    REQUIRE(jobs.backend().stop("held-status").ok());
    job::JobStatus stopped = jobs.wait_finished("held-status");
    CHECK(stopped.phase == job::JobPhase::Failed);
    CHECK(stopped.reason == "Stopped");
}

TEST_CASE("submit --follow streams prefixed lines and exits 1 when the job fails", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("follow-fails", 2, {"--fail-rank", "0"}, "restartPolicy: Never\n");
    auto run = jobs.kftrain({"submit", "-f", file, "--local", "--follow"});
    CHECK(run.code == 1);
    CHECK(run.out.find("job follow-fails started (local)\n") == 0);
    CHECK(run.out.find("worker-0 | start:") != std::string::npos);
    CHECK(run.out.find("master-0 | fake-replica: rank 0 failing with code 1") != std::string::npos);
    CHECK(run.err.find("job follow-fails Failed (PyTorchJobFailed): master-0 exited with code 1") !=
          std::string::npos);
}

TEST_CASE("submit --follow exits 0 when the job succeeds", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("follow-ok", 2, {"--steps", "2"});
    auto run = jobs.kftrain({"submit", "-f", file, "--local", "--follow"});
    CHECK(run.code == 0);
    CHECK(run.out.find("master-0 | epoch 1/1 step 2/2 loss 0.5000") != std::string::npos);
}

TEST_CASE("a command that cannot be found is refused with exit 2 and nothing starts", "[local]") {
    LocalJobs jobs;
    std::string path = jobs.dir() + "/missing.yaml";
    kftrain::test::write_file(path, "name: missing\ncommand: [no-such-program-kftrain]\n");
    auto run = jobs.kftrain({"submit", "-f", path, "--local"});
    CHECK(run.code == 2);
    CHECK(run.err ==
          "kftrain: error: command: not found beside kftrain or on PATH (got "
          "no-such-program-kftrain)\n");
    CHECK_FALSE(std::filesystem::exists(kftrain::backend::local::job_dir("missing")));
}

TEST_CASE("submit --follow keeps following across a restart", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("follow-retry", 2,
                              {"--fail-rank", "1", "--fail-once", jobs.dir() + "/failed-once",
                               "--wait-peers", jobs.dir()},
                              "restartPolicy: OnFailure\n");
    auto run = jobs.kftrain({"submit", "-f", file, "--local", "--follow"});
    CHECK(run.code == 0);
    auto restart = run.out.find("worker-0 | kftrain: worker-0 exited with code 1; restarting");
    auto finish = run.out.find("master-0 | finished:");
    REQUIRE(restart != std::string::npos);
    REQUIRE(finish != std::string::npos);
    CHECK(restart < finish);
    CHECK(run.out.find("worker-0 | start:", restart) != std::string::npos);
}

namespace {

// Start `kftrain submit --follow` with extra flags, wait until the job runs,
// send it SIGINT, and return its exit code.
int interrupt_follow(LocalJobs& jobs, const std::string& file, const std::string& job,
                     const std::vector<std::string>& extra) {
    kftrain::util::SpawnOptions options;
    options.argv = {kftrain::test::kftrain_binary(), "submit", "-f", file, "--local", "--follow"};
    options.argv.insert(options.argv.end(), extra.begin(), extra.end());
    options.env = {{"XDG_STATE_HOME", jobs.dir() + "/state"}};
    options.stdout_to = kftrain::util::Redirect::pipe();
    options.stderr_to = kftrain::util::Redirect::null();
    auto process = kftrain::util::Process::spawn(options);
    REQUIRE(process.ok());
    jobs.wait_for(job, test::all_replicas_running);
    // A prefixed line means kftrain is following (and catching Ctrl-C).
    std::string out;
    char buffer[4096];
    while (out.find("master-0 | ") == std::string::npos) {
        ssize_t n = ::read(process->stdout_fd(), buffer, sizeof(buffer));
        REQUIRE(n > 0);
        out.append(buffer, static_cast<size_t>(n));
    }
    process->signal(SIGINT);
    auto status = process->wait();
    REQUIRE(status.ok());
    return status->as_shell_code();
}

}  // namespace

TEST_CASE("Ctrl-C during submit --follow stops following and leaves the job running", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("ctrl-c", 2, {"--hold-rank", "-1"});
    CHECK(interrupt_follow(jobs, file, "ctrl-c", {}) == 130);
    CHECK(jobs.backend().status("ctrl-c")->phase == job::JobPhase::Running);
}

TEST_CASE("Ctrl-C during submit --follow --stop-on-interrupt stops the job too", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("ctrl-c-stop", 2, {"--hold-rank", "-1"});
    CHECK(interrupt_follow(jobs, file, "ctrl-c-stop", {"--stop-on-interrupt"}) == 130);
    job::JobStatus status = jobs.wait_finished("ctrl-c-stop");
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.reason == "Stopped");
    for (const auto& replica : status.replicas) {
        CHECK_FALSE(kftrain::util::process_alive(replica.pid));
    }
}

TEST_CASE("a job rendered from a custom template runs locally as the template says",
          "[local][cli]") {
    LocalJobs jobs;
    // The built-in template with one change a cluster team might make: an extra variable.
    std::string tmpl = kftrain::test::read_bytes(std::string(kftrain::test::source_dir()) +
                                                 "/templates/pytorchjob.yaml");
    const std::string placeholder = "env: \"{{ env }}\"";
    REQUIRE(tmpl.find(placeholder) != std::string::npos);
    size_t at;
    while ((at = tmpl.find(placeholder)) != std::string::npos) {
        tmpl.replace(at, placeholder.size(),
                     "env: [{name: FROM_TEMPLATE, value: \"set by the template\"}]");
    }
    std::string template_path = jobs.dir() + "/team-template.yaml";
    kftrain::test::write_file(template_path, tmpl);
    std::string file = jobs.dir() + "/templated.yaml";
    kftrain::test::write_file(
        file,
        "name: templated\nreplicas: 2\nimage: team/trainer:1\n"
        "command: [sh]\nargs: [-c, 'echo \"FROM_TEMPLATE=$FROM_TEMPLATE\"']\n");

    auto submitted = jobs.kftrain({"submit", "-f", file, "--template", template_path, "--local"});
    REQUIRE(submitted.code == 0);
    CHECK(submitted.err ==
          "kftrain: note: running on this machine: image team/trainer:1 does not apply (volumes "
          "with localPath are mapped)\n");
    CHECK(jobs.wait_finished("templated").phase == job::JobPhase::Succeeded);
    auto lines = jobs.log_lines("templated");
    CHECK(contains_line(lines, "master-0 | FROM_TEMPLATE=set by the template"));
    CHECK(contains_line(lines, "worker-0 | FROM_TEMPLATE=set by the template"));
}

TEST_CASE("a 2-node local TrainJob gives each node only Trainer v2's variables", "[local]") {
    LocalJobs jobs;
    auto file = jobs.job_file("v2-ok", 2,
                              {"--steps", "3", "--env-out", jobs.dir(), "--wait-peers", jobs.dir()},
                              "kind: TrainJob\nnprocPerNode: \"1\"\nenv:\n  FAKE_USER_VAR: hi\n");
    auto submitted = jobs.kftrain({"submit", "-f", file, "--local"});
    REQUIRE(submitted.code == 0);

    job::JobStatus status = jobs.wait_finished("v2-ok");
    CHECK(status.kind == "TrainJob");
    CHECK(status.phase == job::JobPhase::Succeeded);
    CHECK(status.reason == "AllJobsCompleted");
    REQUIRE(status.replicas.size() == 2);
    CHECK(status.replicas[0].name == "node-0");
    CHECK(status.replicas[1].name == "node-1");
    CHECK(status.replicas[1].type == "Node");
    REQUIRE(status.progress.has_value());
    CHECK(status.progress->event == "finish");

    auto lines = jobs.log_lines("v2-ok");
    CHECK(contains_line(lines, R"(node-0 | {"event":"start","rank":0,"world_size":2)"));
    CHECK(contains_line(lines, R"(node-1 | {"event":"start","rank":1,"world_size":2)"));
    kftrain::job::LogOptions one;
    one.replica = "node-1";
    for (const auto& line : jobs.log_lines("v2-ok", one)) {
        CHECK(line.rfind("node-1 | ", 0) == 0);
    }

    std::string node_env = kftrain::test::read_bytes(jobs.dir() + "/rank-1.env");
    CHECK(node_env.find("PET_NODE_RANK=1\n") != std::string::npos);
    CHECK(node_env.find("PET_NNODES=2\n") != std::string::npos);
    CHECK(node_env.find("PET_NPROC_PER_NODE=1\n") != std::string::npos);
    CHECK(node_env.find("PET_MASTER_ADDR=127.0.0.1\n") != std::string::npos);
    CHECK(node_env.find("FAKE_USER_VAR=hi\n") != std::string::npos);
    // Trainer v2 sets no RANK, WORLD_SIZE or MASTER_ADDR: the program derives them.
    CHECK(node_env.find("\nRANK=\n") != std::string::npos);
    CHECK(node_env.find("WORLD_SIZE=\n") != std::string::npos);
    CHECK(node_env.find("MASTER_ADDR=\n") != std::string::npos);
    CHECK(node_env.find("PYTHONUNBUFFERED=1\n") == std::string::npos);  // v1's, not v2's

    auto described = jobs.kftrain({"describe", "v2-ok", "--local"});
    CHECK(described.code == 0);
    CHECK(described.out.find("Kind:            TrainJob\n") != std::string::npos);
    CHECK(described.out.find("      PET_NODE_RANK=1\n") != std::string::npos);
}

TEST_CASE("a local TrainJob fails when any node fails, as its JobSet does", "[local]") {
    LocalJobs jobs;
    auto file =
        jobs.job_file("v2-fails", 2, {"--steps", "1", "--fail-rank", "1"}, "kind: TrainJob\n");
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    job::JobStatus status = jobs.wait_finished("v2-fails");
    CHECK(status.phase == job::JobPhase::Failed);
    CHECK(status.reason == "FailedJobs");
    CHECK(status.message == "node-1 exited with code 1");
}
