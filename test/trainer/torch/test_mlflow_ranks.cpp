// MLflow tracking seen from real kftrain-trainer processes: one run per job, from rank 0.
#include <csignal>

#include "trainer/mlflow/run_id.h"
#include "trainer/support/mlflow_test_server.h"
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

constexpr const char* k_token = "tok-SECRET-4242";

std::vector<std::string> mlp_args(const std::string& dir) {
    return {"--model",   "mlp", "--samples",    "600",  "--batch-size",     "32",
            "--epochs",  "2",   "--log-format", "json", "--log-every",      "5",
            "--threads", "1",   "--timeout",    "60",   "--checkpoint-dir", dir + "/ckpt"};
}

std::map<std::string, std::string> mlflow_env(const MlflowTestServer& server) {
    return {{"MLFLOW_TRACKING_URI", server.uri()},
            {"MLFLOW_EXPERIMENT_NAME", "mnist"},
            {"MLFLOW_TRACKING_TOKEN", k_token},
            {"KFTRAIN_JOB_NAME", "job-a"},
            {"KFTRAIN_NAMESPACE", "team"}};
}

// Return every line the ranks printed, stdout and stderr.
std::string all_output(const std::vector<Rank>& ranks) {
    std::string out;
    for (const auto& r : ranks) {
        out += read_bytes(r.out_path) + read_bytes(r.err_path);
    }
    return out;
}

}  // namespace

TEST_CASE("a 2-rank job records exactly one MLflow run with its params and metrics",
          "[trainer][mlflow]") {
    MlflowTestServer server;
    server.require_authorization(std::string("Bearer ") + k_token);
    const std::string dir = make_temp_dir();
    const auto ranks = start_job(dir, 2, mlp_args(dir), mlflow_env(server));
    wait_all(ranks);
    CHECK(server.violations().empty());
    REQUIRE(server.runs().size() == 1);
    const auto run = server.runs()[0];
    CHECK(run.run_name == "job-a");
    CHECK(run.status == "FINISHED");
    CHECK(run.tags.at("kftrain.world_size") == "2");
    CHECK(run.tags.at("kftrain.namespace") == "team");
    CHECK(run.params.at("model") == "mlp");
    CHECK(run.params.at("world_size") == "2");
    CHECK(run.params.at("global_batch_size") == "64");
    CHECK(run.params.at("epochs") == "2");
    CHECK(run.values("loss").size() == events(ranks[0], "progress").size());
    CHECK(run.values("epoch_time_s").size() == 2);
    CHECK(run.values("eval_accuracy").size() == 2);
    CHECK(kftrain::trainer::mlflow::read_run_id(dir + "/ckpt") == run.run_id);
    CHECK(events(ranks[0], "warning").empty());
    CHECK(all_output(ranks).find(k_token) == std::string::npos);
}

TEST_CASE("a tracking server that is down does not change what training computes",
          "[trainer][mlflow]") {
    MlflowTestServer server;
    const std::string tracked_dir = make_temp_dir();
    const std::string down_dir = make_temp_dir();
    auto env = mlflow_env(server);
    env["KFTRAIN_PARAMS_OUT"] = tracked_dir + "/params";
    const auto tracked = start_job(tracked_dir, 2, mlp_args(tracked_dir), env);
    wait_all(tracked);

    MlflowTestServer down;
    down.fail(FailMode::refuse);
    env = mlflow_env(down);
    env["KFTRAIN_PARAMS_OUT"] = down_dir + "/params";
    const auto untracked = start_job(down_dir, 2, mlp_args(down_dir), env);
    wait_all(untracked);
    CHECK(read_params(down_dir + "/params.rank0") == read_params(tracked_dir + "/params.rank0"));
    CHECK(events(untracked[0], "finish").size() == 1);
    const auto warnings = events(untracked[0], "warning");
    REQUIRE(warnings.size() == 1);
    INFO(warnings[0].dump());
    CHECK(warnings[0]["message"].get<std::string>().find("MLflow tracking off") == 0);
    CHECK(down.requests().empty());
}

TEST_CASE("401 from the tracking server is reported once and training goes on",
          "[trainer][mlflow]") {
    MlflowTestServer server;
    server.require_authorization("Bearer the-right-one");
    const std::string dir = make_temp_dir();
    const auto ranks = start_job(dir, 2, mlp_args(dir), mlflow_env(server));
    wait_all(ranks);
    CHECK(events(ranks[0], "finish").size() == 1);
    const auto warnings = events(ranks[0], "warning");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0]["message"].get<std::string>().find("HTTP 401 UNAUTHENTICATED") !=
          std::string::npos);
    CHECK(server.requests().size() == 1);
    CHECK(server.runs().empty());
    CHECK(all_output(ranks).find(k_token) == std::string::npos);
}

TEST_CASE("SIGTERM marks the run FAILED and the restarted job continues the same run",
          "[trainer][mlflow]") {
    MlflowTestServer server;
    const std::string dir = make_temp_dir();
    const std::vector<std::string> args = {
        "--model",   "mnist-cnn", "--samples",        "512",         "--batch-size",       "16",
        "--epochs",  "2",         "--log-format",     "json",        "--log-every",        "1",
        "--threads", "1",         "--checkpoint-dir", dir + "/ckpt", "--checkpoint-every", "4"};
    const auto first = start_trainer(dir, "first", args, mlflow_env(server));
    REQUIRE(wait_for_output(first, "\"global_step\":3,", 60s));
    ::kill(first.pid, SIGTERM);
    CHECK(wait_exit(first, 60s) == 143);
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].status == "FAILED");
    const auto logged_first = server.runs()[0].values("loss").size();

    const auto second = start_trainer(dir, "second", args, mlflow_env(server));
    CHECK(wait_exit(second, 120s) == 0);
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].status == "FINISHED");
    CHECK(server.runs()[0].values("loss").size() > logged_first);
    CHECK(server.violations().empty());
}
