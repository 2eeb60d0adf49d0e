#pragma once

// Helpers shared by the MLflow logger tests: a warning collector, a config
// pointing at the test server, and retry options fast enough for tests.
#include <string>

#include "trainer/mlflow/run_logger.h"
#include "trainer/support/mlflow_test_server.h"
#include "trainer/support/test_warnings.h"

namespace trainer_test {

// A config for the run "job-a" of job "job-a" in namespace "team", experiment "mnist".
inline kftrain::trainer::mlflow::MlflowConfig config_for(const MlflowTestServer& server) {
    kftrain::trainer::mlflow::MlflowConfig c;
    c.tracking_uri = server.uri();
    c.experiment_name = "mnist";
    c.run_name = "job-a";
    c.job_name = "job-a";
    c.job_namespace = "team";
    return c;
}

// Retry fast so failure tests finish quickly; the shape of the policy is what counts.
inline kftrain::trainer::mlflow::MlflowOptions fast_options() {
    kftrain::trainer::mlflow::MlflowOptions o;
    o.retry = kftrain::trainer::mlflow::RetryPolicy{3, std::chrono::milliseconds(1),
                                                    std::chrono::milliseconds(4)};
    o.request_timeout = std::chrono::milliseconds(5000);
    o.flush_budget = std::chrono::seconds(30);
    return o;
}

}  // namespace trainer_test
