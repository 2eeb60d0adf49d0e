#include "trainer/mlflow/options.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "trainer/loop/tracking.h"
#include "trainer/mlflow/mlflow_test_support.h"
#include "trainer/support/fake_env.h"
#include "trainer/support/mlflow_test_server.h"

using namespace kftrain::trainer;
using namespace kftrain::trainer::mlflow;
using std::chrono::milliseconds;
using trainer_test::env_of;
using trainer_test::FailMode;
using trainer_test::MlflowTestServer;
using trainer_test::Warnings;

TEST_CASE("MLflow's own request variables set the logger's retries and timeouts", "[mlflow]") {
    Warnings warnings;
    const MlflowOptions o = read_mlflow_options(env_of({{"MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0"},
                                                        {"MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "2"},
                                                        {"MLFLOW_HTTP_REQUEST_TIMEOUT", "120"},
                                                        {"KFTRAIN_MLFLOW_FLUSH_TIMEOUT", "1.5"}}),
                                                warnings.sink());
    CHECK(o.retry.max_attempts == 1);
    CHECK(o.retry.first_delay == milliseconds(2000));
    CHECK(o.retry.max_delay == milliseconds(8000));
    CHECK(o.request_timeout == milliseconds(120000));
    CHECK(o.flush_budget == milliseconds(1500));
    CHECK(warnings.all().empty());
}

TEST_CASE("unset MLflow request variables keep the logger's defaults", "[mlflow]") {
    const MlflowOptions o = read_mlflow_options(env_of({}), {});
    const MlflowOptions defaults;
    CHECK(o.retry.max_attempts == defaults.retry.max_attempts);
    CHECK(o.retry.first_delay == defaults.retry.first_delay);
    CHECK(o.request_timeout == defaults.request_timeout);
    CHECK(o.flush_budget == defaults.flush_budget);
}

TEST_CASE("a malformed MLflow request variable is named once and its default kept", "[mlflow]") {
    struct Case {
        const char* name;
        const char* value;
        const char* warning;
    };
    const Case cases[] = {
        {"MLFLOW_HTTP_REQUEST_MAX_RETRIES", "many",
         "MLFLOW_HTTP_REQUEST_MAX_RETRIES: must be a number from 0 to 100 (got many); using 4"},
        {"MLFLOW_HTTP_REQUEST_TIMEOUT", "0",
         "MLFLOW_HTTP_REQUEST_TIMEOUT: must be a number from 0.001 to 86400 (got 0); using 10s"},
        {"MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "-1",
         "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR: must be a number from 0 to 3600 (got -1); using "
         "0.5s"},
        {"KFTRAIN_MLFLOW_FLUSH_TIMEOUT", "10s",
         "KFTRAIN_MLFLOW_FLUSH_TIMEOUT: must be a number from 0 to 86400 (got 10s); using 10s"},
    };
    const MlflowOptions defaults;
    for (const auto& c : cases) {
        SECTION(c.name) {
            Warnings warnings;
            const MlflowOptions o =
                read_mlflow_options(env_of({{c.name, c.value}}), warnings.sink());
            CHECK(warnings.all() == std::vector<std::string>{c.warning});
            CHECK(o.retry.max_attempts == defaults.retry.max_attempts);
            CHECK(o.request_timeout == defaults.request_timeout);
            CHECK(o.flush_budget == defaults.flush_budget);
        }
    }
}

TEST_CASE("MLFLOW_HTTP_REQUEST_MAX_RETRIES=0 makes the trainer's logger try once", "[mlflow]") {
    MlflowTestServer server;
    server.fail(FailMode::error_500);
    Warnings warnings;
    auto logger = make_run_logger(RunInfo{0, 1, "", warnings.sink()},
                                  env_of({{"MLFLOW_TRACKING_URI", server.uri()},
                                          {"MLFLOW_EXPERIMENT_NAME", "mnist"},
                                          {"MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0"}}));
    logger->log_params({{"model", "mnist-cnn"}});
    REQUIRE(trainer_test::poll_until([&] { return warnings.all().size() == 1; }));
    logger.reset();  // flushes and joins the sender
    CHECK(server.count("experiments/get-by-name") == 1);
    CHECK(warnings.all()[0].find(" after 1 attempt (") != std::string::npos);
}
