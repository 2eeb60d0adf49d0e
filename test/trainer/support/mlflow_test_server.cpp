// The MLflow test server's state; its endpoints are in mlflow_test_handlers.cpp.
#include "trainer/support/mlflow_test_server.h"

namespace trainer_test {
namespace {

// MLflow's error codes for the failures the server injects.
nlohmann::json mlflow_error_body(long status, const std::string& message) {
    const char* code = status == 401 ? "UNAUTHENTICATED" : "INTERNAL_ERROR";
    return {{"error_code", code}, {"message", message}};
}

}  // namespace

std::vector<double> FakeRun::values(const std::string& key) const {
    std::vector<double> out;
    for (const auto& m : metrics) {
        if (m.value("key", "") == key) {
            out.push_back(m["value"].get<double>());
        }
    }
    return out;
}

MlflowTestServer::MlflowTestServer()
    : m_http([this](const RecordedRequest& request) { return answer(request); },
             mlflow_error_body) {}

std::vector<FakeRun> MlflowTestServer::runs() const {
    std::lock_guard lock(m_mutex);
    return m_runs;
}

std::map<std::string, std::string> MlflowTestServer::experiments() const {
    std::lock_guard lock(m_mutex);
    return m_experiments;
}

std::vector<std::string> MlflowTestServer::violations() const {
    std::lock_guard lock(m_mutex);
    return m_violations;
}

int MlflowTestServer::count(const std::string& endpoint) const {
    return m_http.count_path(k_mlflow_api_prefix + endpoint);
}

}  // namespace trainer_test
