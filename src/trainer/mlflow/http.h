#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "trainer/http/client.h"
#include "trainer/mlflow/config.h"

namespace kftrain::trainer::mlflow {

using http::HttpResponse;
using http::init_curl_once;

// Send MLflow REST requests with the configured auth and TLS settings.
class MlflowHttp {
  public:
    // Use config's URI, credentials and TLS settings; abort, when set, cuts a request short.
    MlflowHttp(const MlflowConfig& config, std::chrono::milliseconds timeout,
               const std::atomic<bool>* abort = nullptr);

    // GET <uri>/api/2.0/mlflow/<endpoint>?<query>; query must be URL-encoded already.
    HttpResponse get(const std::string& endpoint, const std::string& query);
    // POST a JSON body to <uri>/api/2.0/mlflow/<endpoint>.
    HttpResponse post(const std::string& endpoint, const std::string& json_body);
    // Return a query value URL-encoded.
    std::string escape(const std::string& value) { return m_client.escape(value); }

  private:
    const MlflowConfig& m_config;
    http::RequestAuth m_auth;
    http::HttpClient m_client;
};

}  // namespace kftrain::trainer::mlflow
