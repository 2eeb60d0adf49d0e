#include "trainer/mlflow/run_logger.h"

#include <catch2/catch.hpp>
#include <mutex>

#include "support/files.h"
#include "trainer/loop/tracking.h"
#include "trainer/mlflow/mlflow_test_support.h"
#include "trainer/mlflow/run_id.h"
#include "trainer/support/mlflow_test_server.h"

using kftrain::test::make_temp_dir;
using namespace kftrain::trainer;
using namespace kftrain::trainer::mlflow;
using trainer_test::config_for;
using trainer_test::FailMode;
using trainer_test::fast_options;
using trainer_test::MlflowTestServer;
using trainer_test::poll_until;
using trainer_test::Warnings;

namespace {

// Log what one rank-0 training run of two epochs would log, then finish.
void log_a_run(MlflowRunLogger& logger, RunStatus end = RunStatus::finished) {
    logger.log_params({{"model", "mnist-cnn"}, {"epochs", "2"}, {"world_size", "2"}});
    for (int step = 1; step <= 10; ++step) {
        logger.log_metrics({{"loss", 1.0 / step}, {"accuracy", 0.1 * step}}, step);
    }
    logger.log_metrics({{"epoch_time_s", 3.5}}, 10);
    logger.set_status(end);
}

}  // namespace

TEST_CASE("a run is created with its tags, params, metrics and end status", "[mlflow]") {
    MlflowTestServer server;
    Warnings warnings;
    {
        MlflowRunLogger logger(config_for(server), {2, "", warnings.sink()}, fast_options());
        log_a_run(logger);
    }
    CHECK(server.violations().empty());
    CHECK(warnings.all().empty());
    REQUIRE(server.runs().size() == 1);
    const auto run = server.runs()[0];
    CHECK(server.experiments().at("mnist") == run.experiment_id);
    CHECK(run.run_name == "job-a");
    CHECK(run.tags.at("kftrain.job_name") == "job-a");
    CHECK(run.tags.at("kftrain.namespace") == "team");
    CHECK(run.tags.at("kftrain.world_size") == "2");
    CHECK(run.tags.count("kftrain.trainer_version") == 1);
    CHECK(run.params == std::map<std::string, std::string>{
                            {"model", "mnist-cnn"}, {"epochs", "2"}, {"world_size", "2"}});
    CHECK(run.values("loss").size() == 10);
    CHECK(run.values("loss").front() == 1.0);
    CHECK(run.values("epoch_time_s") == std::vector<double>{3.5});
    CHECK(run.status == "FINISHED");
    CHECK(run.end_time >= run.start_time);
}

TEST_CASE("an existing experiment is reused, not created again", "[mlflow]") {
    MlflowTestServer server;
    const auto id = server.add_experiment("mnist");
    {
        MlflowRunLogger logger(config_for(server), {1, "", nullptr}, fast_options());
        log_a_run(logger);
    }
    CHECK(server.count("experiments/create") == 0);
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].experiment_id == id);
}

TEST_CASE("MLFLOW_EXPERIMENT_ID wins over the experiment name", "[mlflow]") {
    MlflowTestServer server;
    const auto id = server.add_experiment("other");
    auto config = config_for(server);
    config.experiment_id = id;
    {
        MlflowRunLogger logger(config, {1, "", nullptr}, fast_options());
        log_a_run(logger);
    }
    CHECK(server.count("experiments/get-by-name") == 0);
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].experiment_id == id);
}

TEST_CASE("a restarted rank 0 continues the run kept in the checkpoint directory", "[mlflow]") {
    MlflowTestServer server;
    const std::string dir = make_temp_dir();
    std::string first_id;
    {
        MlflowRunLogger logger(config_for(server), {2, dir, nullptr}, fast_options());
        log_a_run(logger, RunStatus::killed);
        logger.close();
        first_id = logger.stats().run_id;
    }
    REQUIRE(read_run_id(dir) == first_id);
    REQUIRE(server.runs().at(0).status == "KILLED");
    Warnings warnings;
    {
        MlflowRunLogger logger(config_for(server), {3, dir, warnings.sink()}, fast_options());
        log_a_run(logger);
        logger.close();
        CHECK(logger.stats().resumed);
        CHECK(logger.stats().run_id == first_id);
    }
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].status == "FINISHED");
    CHECK(server.runs()[0].values("loss").size() == 20);
    CHECK(server.runs()[0].tags.at("kftrain.world_size") == "3");
    CHECK(warnings.all().empty());
    CHECK(server.violations().empty());
}

TEST_CASE("a kept run id the server no longer knows starts a new run", "[mlflow]") {
    MlflowTestServer server;
    const std::string dir = make_temp_dir();
    REQUIRE(write_run_id(dir, "gone123").ok());
    Warnings warnings;
    {
        MlflowRunLogger logger(config_for(server), {1, dir, warnings.sink()}, fast_options());
        log_a_run(logger);
    }
    REQUIRE(server.runs().size() == 1);
    CHECK(read_run_id(dir) == server.runs()[0].run_id);
    REQUIRE(warnings.all().size() == 1);
    CHECK(warnings.all()[0].find("gone123") != std::string::npos);
}

TEST_CASE("parameters changed by a restart do not stop tracking", "[mlflow]") {
    MlflowTestServer server;
    const std::string dir = make_temp_dir();
    {
        MlflowRunLogger logger(config_for(server), {2, dir, nullptr}, fast_options());
        logger.log_params({{"world_size", "2"}});
    }
    Warnings warnings;
    {
        MlflowRunLogger logger(config_for(server), {3, dir, warnings.sink()}, fast_options());
        logger.log_params({{"world_size", "3"}});
        logger.log_metrics({{"loss", 0.5}}, 1);
        logger.set_status(RunStatus::finished);
        logger.close();
        CHECK(!logger.stats().off);
    }
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].params.at("world_size") == "2");
    CHECK(server.runs()[0].values("loss").size() == 1);
    CHECK(server.runs()[0].status == "FINISHED");
    REQUIRE(warnings.all().size() == 1);
    CHECK(warnings.all()[0].find("first attempt") != std::string::npos);
}

TEST_CASE("only rank 0 with MLFLOW_TRACKING_URI set gets the MLflow logger", "[mlflow]") {
    const EnvLookup with_uri = [](const std::string& name) -> std::optional<std::string> {
        if (name == "MLFLOW_TRACKING_URI") {
            return std::string("http://127.0.0.1:1");
        }
        return std::nullopt;
    };
    const EnvLookup without = [](const std::string&) { return std::optional<std::string>(); };
    auto rank0 = make_run_logger(RunInfo{0, 2, "", nullptr}, with_uri);
    auto rank1 = make_run_logger(RunInfo{1, 2, "", nullptr}, with_uri);
    auto untracked = make_run_logger(RunInfo{0, 2, "", nullptr}, without);
    CHECK(dynamic_cast<MlflowRunLogger*>(rank0.get()) != nullptr);
    CHECK(dynamic_cast<NullRunLogger*>(rank1.get()) != nullptr);
    CHECK(dynamic_cast<NullRunLogger*>(untracked.get()) != nullptr);
}

TEST_CASE("a tracking URI that is not http(s) is reported once and tracking stays off",
          "[mlflow]") {
    const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
        if (name == "MLFLOW_TRACKING_URI") {
            return std::string("file:///tmp/mlruns");
        }
        return std::nullopt;
    };
    Warnings warnings;
    auto logger = make_run_logger(RunInfo{0, 1, "", warnings.sink()}, env);
    CHECK(dynamic_cast<NullRunLogger*>(logger.get()) != nullptr);
    CHECK(warnings.all() == std::vector<std::string>{
                                "MLflow tracking off: MLFLOW_TRACKING_URI must be an http:// "
                                "or https:// URL of a tracking server (got file:///tmp/mlruns)"});
}
