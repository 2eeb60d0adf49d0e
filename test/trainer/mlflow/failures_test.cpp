#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <mutex>

#include "trainer/mlflow/mlflow_test_support.h"
#include "trainer/mlflow/run_logger.h"
#include "trainer/support/mlflow_test_server.h"

using namespace kftrain::trainer;
using namespace kftrain::trainer::mlflow;
using trainer_test::config_for;
using trainer_test::FailMode;
using trainer_test::fast_options;
using trainer_test::MlflowTestServer;
using trainer_test::Warnings;

namespace {

// Log a short run: params, 20 steps of two metrics, the end status.
void log_a_run(RunLogger& logger) {
    logger.log_params({{"model", "mnist-cnn"}});
    for (int step = 1; step <= 20; ++step) {
        logger.log_metrics({{"loss", 1.0 / step}, {"accuracy", 0.05 * step}}, step);
    }
    logger.set_status(RunStatus::finished);
}

}  // namespace

TEST_CASE("a tracking server down for the whole run costs one retry budget, then one warning",
          "[mlflow]") {
    MlflowTestServer server;
    server.fail(FailMode::refuse);
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, fast_options());
    log_a_run(logger);
    logger.close();
    const auto stats = logger.stats();
    CHECK(stats.requests == 3);
    CHECK(stats.retries == 2);
    CHECK(stats.off);
    CHECK(stats.metrics_sent == 0);
    CHECK(!stats.flush_cut_short);
    CHECK(stats.run_id.empty());
    REQUIRE(warnings.all().size() == 1);
    CHECK(warnings.all()[0].rfind("MLflow tracking off: looking up experiment 'mnist' got no "
                                  "usable answer from " +
                                      server.uri() + " after 3 attempts (",
                                  0) == 0);
    CHECK(warnings.all()[0].find("training continues without tracking") != std::string::npos);
}

TEST_CASE("calls made after tracking went off return at once and send nothing", "[mlflow]") {
    MlflowTestServer server;
    server.fail(FailMode::error_500);
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, fast_options());
    logger.log_params({{"model", "mnist-cnn"}});
    REQUIRE(trainer_test::poll_until([&] { return logger.stats().off; }));
    const int seen = server.count("experiments/get-by-name");
    log_a_run(logger);
    logger.close();
    CHECK(seen == 3);
    CHECK(server.requests().size() == 3);
    CHECK(warnings.all().size() == 1);
    CHECK(warnings.all()[0].find("HTTP 500 INTERNAL_ERROR: injected failure") != std::string::npos);
}

TEST_CASE("500 answers are retried and the run is recorded once the server recovers", "[mlflow]") {
    MlflowTestServer server;
    server.fail(FailMode::error_500, 2);
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, fast_options());
    log_a_run(logger);
    logger.close();
    CHECK(logger.stats().retries == 2);
    CHECK(warnings.all().empty());
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].values("loss").size() == 20);
    CHECK(server.runs()[0].status == "FINISHED");
}

TEST_CASE("an answer slower than the request timeout is retried", "[mlflow]") {
    MlflowTestServer server;
    server.set_slow_delay(std::chrono::milliseconds(3000));
    server.fail(FailMode::slow, 1);
    auto options = fast_options();
    options.request_timeout = std::chrono::milliseconds(300);
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, options);
    log_a_run(logger);
    logger.close();
    CHECK(logger.stats().retries >= 1);
    CHECK(warnings.all().empty());
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].status == "FINISHED");
}

TEST_CASE("a slow server makes the logger drop metric values instead of waiting", "[mlflow]") {
    MlflowTestServer server;
    server.set_slow_delay(std::chrono::milliseconds(2000));
    server.fail(FailMode::slow, 1);
    auto options = fast_options();
    options.max_queued_metrics = 10;
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, options);
    log_a_run(logger);
    logger.close();
    const auto stats = logger.stats();
    CHECK(stats.metrics_dropped > 0);
    CHECK(stats.metrics_sent + stats.metrics_dropped == 40);
    CHECK(server.runs().at(0).values("loss").size() + server.runs()[0].values("accuracy").size() ==
          static_cast<std::size_t>(stats.metrics_sent));
    REQUIRE(warnings.all().size() == 1);
    CHECK(warnings.all()[0] == fmt::format("MLflow: {} metric values dropped: the tracking server "
                                           "was slower than training",
                                           stats.metrics_dropped));
}

TEST_CASE("401 is reported once with MLflow's message and tracking stops", "[mlflow]") {
    MlflowTestServer server;
    server.fail(FailMode::unauthorized);
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, fast_options());
    log_a_run(logger);
    logger.close();
    CHECK(logger.stats().requests == 1);
    CHECK(logger.stats().off);
    CHECK(server.requests().size() == 1);
    REQUIRE(warnings.all().size() == 1);
    CHECK(warnings.all()[0] ==
          "MLflow tracking off: looking up experiment 'mnist' was refused by " + server.uri() +
              " (HTTP 401 UNAUTHENTICATED: credentials were not accepted); training continues "
              "without tracking");
}

TEST_CASE("the bearer token is sent but never appears in any output", "[mlflow]") {
    MlflowTestServer server;
    const std::string token = "tok-SECRET-123";
    server.require_authorization("Bearer " + token);
    auto config = config_for(server);
    config.token = token;
    {
        MlflowRunLogger logger(config, {1, "", nullptr}, fast_options());
        log_a_run(logger);
    }
    REQUIRE(server.runs().size() == 1);
    CHECK(server.requests().at(0).authorization == "Bearer " + token);

    server.require_authorization("Bearer another");
    server.fail(FailMode::error_500);
    Warnings warnings;
    config.tracking_uri = "http://user:" + token + "@" + server.uri().substr(7);
    {
        MlflowRunLogger logger(config, {1, "", warnings.sink()}, fast_options());
        log_a_run(logger);
    }
    REQUIRE(warnings.all().size() == 1);
    CHECK(warnings.text().find(token) == std::string::npos);
    CHECK(warnings.text().find("http://***@127.0.0.1") != std::string::npos);
}

TEST_CASE("basic auth is used when a username and password are set", "[mlflow]") {
    MlflowTestServer server;
    server.require_authorization("Basic YWxpY2U6czNjcmV0LXB3");  // alice:s3cret-pw
    auto config = config_for(server);
    config.username = "alice";
    config.password = "s3cret-pw";
    config.token = "ignored-token";
    Warnings warnings;
    {
        MlflowRunLogger logger(config, {1, "", warnings.sink()}, fast_options());
        log_a_run(logger);
    }
    CHECK(warnings.all().empty());
    CHECK(server.runs().size() == 1);
}

TEST_CASE("a server failing mid-run switches tracking off with one warning", "[mlflow]") {
    MlflowTestServer server;
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, fast_options());
    logger.log_params({{"model", "mnist-cnn"}});
    REQUIRE(trainer_test::poll_until([&] { return server.count("runs/log-batch") == 1; }));
    server.fail(FailMode::error_500);
    logger.log_metrics({{"loss", 0.5}}, 1);
    logger.set_status(RunStatus::finished);
    logger.close();
    CHECK(logger.stats().off);
    REQUIRE(warnings.all().size() == 1);
    INFO(warnings.all()[0]);
    CHECK(warnings.all()[0].find("MLflow tracking off: logging metrics got no usable answer") == 0);
    REQUIRE(server.runs().size() == 1);
    CHECK(server.runs()[0].status == "RUNNING");
    CHECK(server.runs()[0].metrics.empty());
}

TEST_CASE("the exit flush gives up at the flush budget and says so once", "[mlflow]") {
    MlflowTestServer server;
    server.set_slow_delay(std::chrono::seconds(30));
    server.fail(FailMode::slow);
    auto options = fast_options();
    options.request_timeout = std::chrono::seconds(60);
    options.flush_budget = std::chrono::milliseconds(100);
    Warnings warnings;
    MlflowRunLogger logger(config_for(server), {1, "", warnings.sink()}, options);
    log_a_run(logger);
    logger.close();
    CHECK(logger.stats().flush_cut_short);
    CHECK(logger.stats().closed);
    CHECK(warnings.all() == std::vector<std::string>{"MLflow: pending tracking data not sent "
                                                     "within the 0.1s flush limit at exit"});
}
