#include "trainer/mlflow/rest.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "trainer/mlflow/call.h"
#include "trainer/mlflow/config.h"
#include "trainer/support/fake_env.h"

using namespace kftrain::trainer;
using namespace kftrain::trainer::mlflow;
using trainer_test::env_of;

namespace {

std::vector<MetricPoint> points(int n) {
    std::vector<MetricPoint> out;
    for (int i = 0; i < n; ++i) {
        out.push_back(MetricPoint{"loss", 1.0 / (i + 1), 1700000000000 + i, i});
    }
    return out;
}

}  // namespace

TEST_CASE("log-batch bodies stay within MLflow's 1000 metrics and 100 params", "[mlflow]") {
    const auto metric_bodies = metric_batches("r1", points(2500));
    REQUIRE(metric_bodies.size() == 3);
    CHECK(metric_bodies[0]["metrics"].size() == 1000);
    CHECK(metric_bodies[2]["metrics"].size() == 500);
    CHECK(metric_bodies[0]["run_id"] == "r1");
    CHECK(
        metric_bodies[0]["metrics"][0] ==
        nlohmann::json{{"key", "loss"}, {"value", 1.0}, {"timestamp", 1700000000000}, {"step", 0}});
    std::map<std::string, std::string> params;
    for (int i = 0; i < 250; ++i) {
        params["p" + std::to_string(i)] = std::to_string(i);
    }
    const auto param_bodies = param_batches("r1", params);
    REQUIRE(param_bodies.size() == 3);
    CHECK(param_bodies[0]["params"].size() == 100);
    CHECK(param_bodies[2]["params"].size() == 50);
}

TEST_CASE("metric values JSON cannot carry are left out", "[mlflow]") {
    auto values = points(3);
    values[1].value = std::numeric_limits<double>::quiet_NaN();
    values[2].value = std::numeric_limits<double>::infinity();
    const auto bodies = metric_batches("r1", values);
    REQUIRE(bodies.size() == 1);
    CHECK(bodies[0]["metrics"].size() == 1);
    CHECK(metric_batches("r1", {values[1]}).empty());
}

TEST_CASE("runs/create and runs/update bodies use MLflow's field names", "[mlflow]") {
    const auto create = create_run_body("7", "job-a", 123, {{"kftrain.job_name", "job-a"}});
    CHECK(create == nlohmann::json{{"experiment_id", "7"},
                                   {"start_time", 123},
                                   {"run_name", "job-a"},
                                   {"tags", {{{"key", "kftrain.job_name"}, {"value", "job-a"}}}}});
    CHECK(update_run_body("r", "FINISHED", 456) ==
          nlohmann::json{{"run_id", "r"}, {"status", "FINISHED"}, {"end_time", 456}});
    CHECK(update_run_body("r", "RUNNING", 456) ==
          nlohmann::json{{"run_id", "r"}, {"status", "RUNNING"}});
}

TEST_CASE("MLflow answers are read for ids and error codes", "[mlflow]") {
    CHECK(experiment_id_of(R"({"experiment":{"experiment_id":"12","name":"x"}})") == "12");
    CHECK(experiment_id_of("not json").empty());
    CHECK(run_id_of(R"({"run":{"info":{"run_id":"abc"}}})") == "abc");
    CHECK(run_id_of(R"({"run":{"info":{"run_uuid":"old"}}})") == "old");
    CHECK(run_id_of(R"({"run":{}})").empty());
    const auto e = parse_mlflow_error(R"({"error_code":"RESOURCE_DOES_NOT_EXIST","message":"m"})");
    CHECK(e.error_code == "RESOURCE_DOES_NOT_EXIST");
    CHECK(e.message == "m");
    CHECK(parse_mlflow_error("<html>bad gateway</html>").message == "<html>bad gateway</html>");
    CHECK(parse_mlflow_error(R"({"error_code":5})").error_code.empty());
}

TEST_CASE("backoff doubles from the first delay up to the cap", "[mlflow]") {
    RetryPolicy p{6, std::chrono::milliseconds(100), std::chrono::milliseconds(500)};
    CHECK(backoff_delay(p, 1).count() == 100);
    CHECK(backoff_delay(p, 2).count() == 200);
    CHECK(backoff_delay(p, 3).count() == 400);
    CHECK(backoff_delay(p, 4).count() == 500);
    CHECK(backoff_delay(p, 9).count() == 500);
}

TEST_CASE("only no answer, 429 and 5xx are retried", "[mlflow]") {
    struct Case {
        long status;
        bool retry;
    };
    for (const auto& c : {Case{0, true}, Case{429, true}, Case{500, true}, Case{503, true},
                          Case{400, false}, Case{401, false}, Case{403, false}, Case{404, false}}) {
        INFO("status " << c.status);
        CHECK(is_retryable(HttpResponse{c.status, "", ""}) == c.retry);
    }
}

TEST_CASE("retries stop after max_attempts and report the last answer", "[mlflow]") {
    CallCounts counts;
    int waits = 0;
    const auto r = call_with_retry(
        [] {
            return HttpResponse{503, "{}", ""};
        },
        RetryPolicy{4, std::chrono::milliseconds(1), std::chrono::milliseconds(1)},
        [&](std::chrono::milliseconds) { return ++waits > 0; }, counts);
    CHECK(r.kind == CallResult::Kind::unreachable);
    CHECK(r.attempts == 4);
    CHECK(counts.requests == 4);
    CHECK(counts.retries == 3);
    CHECK(waits == 3);
}

TEST_CASE("tracking is off without MLFLOW_TRACKING_URI", "[mlflow]") {
    auto c = read_mlflow_config(env_of({}));
    REQUIRE(c.ok());
    CHECK(!c->has_value());
}

TEST_CASE("the MLflow settings come from MLFLOW_* and KFTRAIN_JOB_NAME", "[mlflow]") {
    auto c = read_mlflow_config(env_of({{"MLFLOW_TRACKING_URI", "https://mlflow.example:5000/"},
                                        {"KFTRAIN_JOB_NAME", "mnist-a"},
                                        {"KFTRAIN_NAMESPACE", "team"},
                                        {"MLFLOW_TRACKING_INSECURE_TLS", "True"}}));
    REQUIRE(c.ok());
    REQUIRE(c->has_value());
    const auto& m = **c;
    CHECK(m.tracking_uri == "https://mlflow.example:5000");
    CHECK(m.run_name == "mnist-a");
    CHECK(m.job_namespace == "team");
    CHECK(m.insecure_tls);
}

TEST_CASE("a tracking URI that is not http(s) is refused without its password", "[mlflow]") {
    auto c = read_mlflow_config(env_of({{"MLFLOW_TRACKING_URI", "databricks://u:s3cret@ws"}}));
    REQUIRE(!c.ok());
    CHECK(c.error() ==
          "MLFLOW_TRACKING_URI must be an http:// or https:// URL of a tracking server "
          "(got databricks://***@ws)");
}

TEST_CASE("secrets are masked in messages", "[mlflow]") {
    MlflowConfig c;
    c.token = "tok-123";
    c.password = "pw";
    c.tracking_uri = "http://alice:pw@host:5000";
    CHECK(redact_secrets("Bearer tok-123 at http://alice:pw@host:5000/api", c) ==
          "Bearer *** at http://***@host:5000/api");
    CHECK(printable_uri(c) == "http://***@host:5000");
    c.tracking_uri = "https://mlflow.example/api?token=tok-456&x=1";
    CHECK(printable_uri(c) == "https://mlflow.example/api?token=***&x=1");
}

TEST_CASE("a Retry-After longer than the backoff is honoured up to the cap", "[mlflow]") {
    const RetryPolicy p{5, std::chrono::milliseconds(100), std::chrono::milliseconds(5000)};
    HttpResponse busy{429, "", ""};
    CHECK(retry_delay(p, 1, busy).count() == 100);
    busy.retry_after = std::chrono::seconds(2);
    CHECK(retry_delay(p, 1, busy).count() == 2000);
    busy.retry_after = std::chrono::seconds(60);
    CHECK(retry_delay(p, 1, busy).count() == 5000);
}
