#include "trainer/mlflow/http.h"

namespace kftrain::trainer::mlflow {
namespace {

constexpr const char* k_api_prefix = "/api/2.0/mlflow/";

http::RequestAuth auth_of(const MlflowConfig& config) {
    http::RequestAuth auth;
    auth.username = config.username;
    auth.password = config.password;
    auth.bearer_token = config.token;
    auth.ca_file = config.cert_path;
    auth.insecure_tls = config.insecure_tls;
    return auth;
}

}  // namespace

MlflowHttp::MlflowHttp(const MlflowConfig& config, std::chrono::milliseconds timeout,
                       const std::atomic<bool>* abort)
    : m_config(config), m_auth(auth_of(config)), m_client(timeout, abort) {}

HttpResponse MlflowHttp::get(const std::string& endpoint, const std::string& query) {
    return m_client.get(m_config.tracking_uri + k_api_prefix + endpoint + "?" + query, m_auth);
}

HttpResponse MlflowHttp::post(const std::string& endpoint, const std::string& json_body) {
    return m_client.post_json(m_config.tracking_uri + k_api_prefix + endpoint, json_body, m_auth);
}

}  // namespace kftrain::trainer::mlflow
