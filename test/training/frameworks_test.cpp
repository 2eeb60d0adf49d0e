// Other frameworks trained here, replicas as local processes with the environment each kind's
// controller or runtime plugin gives them: examples/xgboost with Debian's python3-xgboost, as an
// XGBoostJob and as a TrainJob on xgboost-distributed; a stand-in for jax.distributed (Debian
// has no JAX) that checks the JAX variables and reaches its peers through them; each kind's own
// rule for when the job has succeeded or failed; and the MPI runtimes, refused here.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "backend/local/local_fixture.h"
#include "backend/local/state/state_dir.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/python_torch.h"
#include "util/subprocess.h"

using namespace kftrain::test;
using kftrain::job::JobPhase;
using nlohmann::json;

namespace {

const std::string k_jax_peers =
    std::string(kftrain::test::test_data_dir()) + "/frameworks/jax_peers.py";

// Run kftrain in dir with Debian's python3 first on PATH; return its exit code and output.
std::pair<int, std::string> kftrain_in(LocalJobs& jobs, const std::string& dir,
                                       const std::vector<std::string>& args) {
    kftrain::util::SpawnOptions options;
    options.argv = {kftrain::test::kftrain_binary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = {{"PATH", k_debian_path}, {"XDG_STATE_HOME", jobs.dir() + "/state"}};
    options.cwd = dir;
    options.stdout_to = kftrain::util::Redirect::file(dir + "/kftrain.out");
    options.stderr_to = kftrain::util::Redirect::file(dir + "/kftrain.out");
    auto process = kftrain::util::Process::spawn(options);
    REQUIRE(process.ok());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto status = process->try_wait()) {
            auto out = kftrain::state::read_state_file(dir + "/kftrain.out");
            return {status->as_shell_code(), out.ok() ? *out : ""};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL("kftrain " << args.front() << " did not end in time");
    return {-1, ""};
}

// Write a job file of kind (and runtime) whose replicas run a python3 program; return its path.
std::string python_job(LocalJobs& jobs, const std::string& name, const std::string& head,
                       int replicas, const std::vector<std::string>& args) {
    std::string list;
    for (const auto& arg : args) {
        list += ", " + json(arg).dump();
    }
    const std::string path = jobs.dir() + "/" + name + ".yaml";
    // A TrainJob has no restartPolicy: its JobSet fails the job when a node fails.
    const bool v1 = head.find("TrainJob") == std::string::npos;
    write_file(path, head + "name: " + name + "\nreplicas: " + std::to_string(replicas) +
                         (v1 ? "\nrestartPolicy: Never" : "") + "\ncommand: [/usr/bin/python3" +
                         list + "]\n");
    return path;
}

}  // namespace

TEST_CASE("examples/xgboost trains distributed XGBoost as a local XGBoostJob and TrainJob",
          "[local][training][frameworks][python]") {
    if (!python_module_ready("xgboost", "python3-xgboost")) {
        return;
    }
    struct Case {
        const char* file;
        const char* name;
        const char* reason;
        const char* lead;
    };
    for (const Case& c :
         {Case{"xgboostjob.yaml", "xgboost", "XGBoostJobSucceeded", "master-0"},
          Case{"trainjob.yaml", "xgboost-trainjob", "AllJobsCompleted", "node-0"}}) {
        INFO(c.file);
        LocalJobs jobs;
        const std::string dir = jobs.dir() + "/xgboost";
        REQUIRE(kftrain::util::make_private_dir(dir).ok());
        for (const std::string part : {"train.py", "xgboostjob.yaml", "trainjob.yaml"}) {
            auto text = kftrain::state::read_state_file(std::string(kftrain::test::source_dir()) +
                                                        "/examples/xgboost/" + part);
            REQUIRE(text.ok());
            write_file(dir + "/" + part, *text);
        }
        // As the job file says, with a third replica: a tracker for three workers.
        auto [code, out] = kftrain_in(
            jobs, dir, {"submit", "-f", c.file, "--local", "--follow", "--set", "replicas=3"});
        INFO(out);
        CHECK(code == 0);
        const json done = jobs.status_json(c.name);
        INFO(done.dump());
        CHECK(done.at("state") == "Succeeded");
        CHECK(done.at("reason") == c.reason);
        CHECK(done.at("progress").value("percent", -1.0) == 100);
        CHECK(done.at("progress").value("accuracy", 0.0) > 0.8);
        // Rank 0 hosted the tracker; all three ranks joined it.
        const auto lines = jobs.log_lines(c.name);
        CHECK(contains_line(lines, std::string(c.lead) + " | logloss="));
        for (const char* rank :
             {"task 0 got new rank", "task 1 got new rank", "task 2 got new rank"}) {
            CHECK(contains_line(lines, rank));
        }
    }
}

TEST_CASE("JAX processes of a JAXJob and of jax-distributed find their coordinator and peers",
          "[local][training][frameworks][python]") {
    for (const char* head : {"kind: JAXJob\n", "kind: TrainJob\nruntime: jax-distributed\n"}) {
        INFO(head);
        LocalJobs jobs;
        const std::string file = python_job(jobs, "jax-peers", head, 3, {k_jax_peers});
        const auto run = jobs.kftrain({"submit", "-f", file, "--local"});
        REQUIRE(run.code == 0);
        const auto done = jobs.wait_finished("jax-peers");
        const auto lines = jobs.log_lines("jax-peers");
        INFO(kftrain::job::phase_name(done.phase) << ": " << done.message);
        CHECK(done.phase == JobPhase::Succeeded);
        const std::string lead =
            std::string(head).find("JAXJob") != std::string::npos ? "worker-0 | " : "node-0 | ";
        CHECK(contains_line(lines, lead + "peers=3"));
        CHECK(contains_line(lines, "process 2 of 3, coordinator 127.0.0.1:"));
    }
}

TEST_CASE("each kind decides its end by its own rule", "[local][training][frameworks][python]") {
    const std::string jax_rank = "import os, sys, time; r = int(os.environ['PROCESS_ID']); ";
    const std::string xgb_rank = "import os, sys, time; r = int(os.environ['RANK']); ";
    struct Case {
        const char* what;
        std::string head;
        std::string code;
        JobPhase phase;
        const char* message;
    };
    const Case cases[] = {
        // controller/jax: every Worker must succeed; one failure under Never fails the job.
        {"a JAXJob fails when one Worker fails", "kind: JAXJob\n",
         jax_rank + "time.sleep(0.2 * r); sys.exit(1 if r == 1 else 0)", JobPhase::Failed,
         "worker-1 exited with code 1 (restartPolicy Never)"},
        {"a JAXJob succeeds when every Worker has", "kind: JAXJob\n",
         jax_rank + "time.sleep(0.3 * r)", JobPhase::Succeeded, "every replica completed"},
        // controller/xgboost: the Master's success is the job's; the Workers are then stopped.
        {"an XGBoostJob succeeds with its Master", "kind: XGBoostJob\n",
         xgb_rank + "time.sleep(0 if r == 0 else 300)", JobPhase::Succeeded,
         "master-0 completed successfully"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        LocalJobs jobs;
        const std::string file = python_job(jobs, "rule", c.head, 3, {"-c", c.code});
        REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
        const auto done = jobs.wait_finished("rule");
        CHECK(done.phase == c.phase);
        CHECK(done.message == c.message);
        CHECK(done.reason ==
              (c.phase == JobPhase::Failed
                   ? std::string(c.head.find("JAX") != std::string::npos ? "JAXJobFailed"
                                                                         : "XGBoostJobFailed")
               : c.head.find("JAX") != std::string::npos ? std::string("JAXJobSucceeded")
                                                         : std::string("XGBoostJobSucceeded")));
    }
}

TEST_CASE("an MPI runtime is refused here with the reason, and nothing starts",
          "[local][training][frameworks]") {
    LocalJobs jobs;
    const std::string path = jobs.dir() + "/ds.yaml";
    write_file(path,
               "kind: TrainJob\nruntime: deepspeed-distributed\nname: ds\n"
               "command: [mpirun, --hostfile, /etc/mpi/hostfile, python3, train.py]\n");
    const auto run = jobs.kftrain({"submit", "-f", path, "--local"});
    CHECK(run.code == 2);
    CHECK(contains(run.err,
                   "runtime deepspeed-distributed: kftrain --local cannot run an MPI "
                   "runtime: its launcher reaches every node with mpirun over SSH"));
    CHECK(kftrain::backend::local::job_names().empty());
    // It renders for a cluster all the same.
    CHECK(jobs.kftrain({"render", "-f", path}).code == 0);
}

TEST_CASE("a framework job that cannot run is refused before anything starts",
          "[local][training][frameworks]") {
    LocalJobs jobs;
    const std::string path = jobs.dir() + "/bad.yaml";
    write_file(path,
               "kind: XGBoostJob\nname: bad\nenv:\n  WORKER_ADDRS: a,b\n"
               "command: [python3, train.py]\n");
    auto run = jobs.kftrain({"submit", "-f", path, "--local"});
    CHECK(run.code == 2);
    CHECK(contains(run.err,
                   "bad.yaml:4: env.WORKER_ADDRS: is set by the Training Operator in "
                   "every XGBoostJob replica"));
    write_file(path, "kind: XGBoostJob\nname: bad\n");
    run = jobs.kftrain({"submit", "-f", path, "--local"});
    CHECK(run.code == 2);
    CHECK(contains(run.err, "command: an XGBoostJob runs your own XGBoost program"));
    CHECK(kftrain::backend::local::job_names().empty());
}

TEST_CASE("a local TFJob's replicas find each other through TF_CONFIG, PS are stopped at the end",
          "[local][training][frameworks][python]") {
    const std::string tf_peers =
        std::string(kftrain::test::test_data_dir()) + "/frameworks/tf_peers.py";
    struct Case {
        const char* roles;
        const char* lead;
        int peers;
    };
    for (const Case& c : {Case{"roles: {chief: 1, worker: 2, ps: 1, evaluator: 1}\n", "chief-0", 5},
                          Case{"roles: {worker: 3, ps: 2}\n", "worker-0", 5}}) {
        INFO(c.roles);
        LocalJobs jobs;
        const std::string path = jobs.dir() + "/tf.yaml";
        write_file(path, std::string("kind: TFJob\nname: tf\n") + c.roles +
                             "restartPolicy: Never\ncommand: [/usr/bin/python3, " + tf_peers +
                             "]\n");
        REQUIRE(jobs.kftrain({"submit", "-f", path, "--local"}).code == 0);
        const auto done = jobs.wait_finished("tf");
        const auto lines = jobs.log_lines("tf");
        INFO(done.message);
        CHECK(done.phase == JobPhase::Succeeded);
        CHECK(done.reason == "TFJobSucceeded");
        CHECK(done.message == std::string(c.lead) + " completed successfully");
        CHECK(contains_line(lines, std::string(c.lead) + " | peers=" + std::to_string(c.peers)));
        // Its operator's variables, as describe shows them.
        CHECK(contains(jobs.kftrain({"describe", "tf", "--local"}).out, "TF_CONFIG={\"cluster\""));
        // A parameter server stopped by the job's success did not fail.
        CHECK(done.counts.at("PS").failed == 0);
        // A parameter server serves until stopped: the job's end stopped it.
        for (const auto& replica : done.replicas) {
            if (replica.name.rfind("ps-", 0) == 0) {
                INFO(replica.name);
                CHECK(replica.state == "Terminated");
            } else {
                CHECK(replica.state == "Succeeded");
            }
        }
    }
}

TEST_CASE(
    "a refused local submit leaves the running job of its name alone, and the operator's "
    "variables cannot come from the shell",
    "[local][training][frameworks]") {
    LocalJobs jobs;
    const std::string running =
        python_job(jobs, "ds", "kind: JAXJob\n", 1, {"-c", "import time; time.sleep(300)"});
    REQUIRE(jobs.kftrain({"submit", "-f", running, "--local"}).code == 0);
    jobs.wait_for("ds",
                  [](const kftrain::job::JobStatus& s) { return s.phase == JobPhase::Running; });
    const std::string mpi = jobs.dir() + "/mpi.yaml";
    write_file(mpi,
               "kind: TrainJob\nruntime: mlx-distributed\nname: ds\n"
               "command: [mpirun, python3, x.py]\n");
    auto replaced = jobs.kftrain({"submit", "-f", mpi, "--local", "--replace"});
    CHECK(replaced.code == 2);
    CHECK(contains(replaced.err, "cannot run an MPI runtime"));
    auto still = jobs.backend().status("ds");
    REQUIRE(still);
    CHECK(still->phase == JobPhase::Running);
    CHECK(jobs.kftrain({"delete", "ds", "--local"}).code == 0);

    const std::string tf = jobs.dir() + "/tf.yaml";
    write_file(tf,
               "kind: TFJob\nname: tf-shell\nroles: {worker: 2}\n"
               "command: [/usr/bin/python3, -c, 'print(1)']\n");
    auto from_shell = run_kftrain({"submit", "-f", tf, "--local", "--env-from-shell", "TF_CONFIG"},
                                  {{"XDG_STATE_HOME", jobs.dir() + "/state"}, {"TF_CONFIG", "x"}});
    CHECK(from_shell.code == 2);
    CHECK(contains(from_shell.err,
                   "--env-from-shell: TF_CONFIG is set by the Training Operator "
                   "in every replica of a TFJob"));
    CHECK_FALSE(jobs.backend().status("tf-shell"));
}

TEST_CASE("examples/xgboost/tune.yaml searches eta over XGBoostJob trials here",
          "[local][training][frameworks][python][tune]") {
    if (!python_module_ready("xgboost", "python3-xgboost")) {
        return;
    }
    LocalJobs jobs;
    const std::string dir = jobs.dir() + "/xgboost";
    REQUIRE(kftrain::util::make_private_dir(dir).ok());
    for (const std::string part : {"train.py", "tune.yaml"}) {
        auto text = kftrain::state::read_state_file(std::string(kftrain::test::source_dir()) +
                                                    "/examples/xgboost/" + part);
        REQUIRE(text.ok());
        write_file(dir + "/" + part, *text);
    }
    auto [code, out] = kftrain_in(jobs, dir, {"tune", "-f", "tune.yaml", "--local"});
    INFO(out);
    CHECK(code == 0);
    CHECK(contains(out, "4 succeeded"));
    CHECK(contains(out, "Best: trial "));
    CHECK(contains(out, "(logloss=0."));
}

TEST_CASE("a local replica's args expand $(NAME) from its env, the operator's variables included",
          "[local][training][frameworks]") {
    LocalJobs jobs;
    const std::string file =
        python_job(jobs, "expand", "kind: JAXJob\n", 2,
                   {"-c", "import sys; print('args=' + ' '.join(sys.argv[1:]))",
                    "$(COORDINATOR_ADDRESS):$(COORDINATOR_PORT)", "id=$(PROCESS_ID)",
                    "$$(PROCESS_ID)", "$(NOT_SET)"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    const auto done = jobs.wait_finished("expand");
    CHECK(done.phase == JobPhase::Succeeded);
    const auto lines = jobs.log_lines("expand");
    CHECK(contains_line(lines, "worker-1 | args=127.0.0.1:"));
    CHECK(contains_line(lines, " id=1 $(PROCESS_ID) $(NOT_SET)"));
    CHECK(contains_line(lines, " id=0 $(PROCESS_ID) $(NOT_SET)"));
    CHECK_FALSE(contains_line(lines, "$(COORDINATOR_PORT)"));
}
