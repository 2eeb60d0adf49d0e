#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "trainer/mlflow/config.h"

namespace kftrain::trainer::mlflow {

// Hold one HTTP answer; status 0 means no answer (transport_error says why).
struct HttpResponse {
    long status = 0;
    std::string body;
    std::string transport_error;
    // The server's Retry-After, when it sent one (429, 503).
    std::chrono::seconds retry_after{0};
};

// Send MLflow REST requests over one reused libcurl handle, with auth and TLS options.
class MlflowHttp {
  public:
    // Use config's URI, credentials and TLS settings; abort, when set, cuts a request short.
    MlflowHttp(const MlflowConfig& config, std::chrono::milliseconds timeout,
               const std::atomic<bool>* abort = nullptr);
    ~MlflowHttp();
    MlflowHttp(const MlflowHttp&) = delete;
    MlflowHttp& operator=(const MlflowHttp&) = delete;

    // GET <uri>/api/2.0/mlflow/<endpoint>?<query>; query must be URL-encoded already.
    HttpResponse get(const std::string& endpoint, const std::string& query);
    // POST a JSON body to <uri>/api/2.0/mlflow/<endpoint>.
    HttpResponse post(const std::string& endpoint, const std::string& json_body);
    // Return a query value URL-encoded.
    std::string escape(const std::string& value);

  private:
    HttpResponse perform(const std::string& url, const std::string* body);
    void set_auth();

    const MlflowConfig& m_config;
    std::chrono::milliseconds m_timeout;
    const std::atomic<bool>* m_abort;
    void* m_curl = nullptr;  // a CURL easy handle
};

// Initialise libcurl once per process; call before starting threads that use it.
void init_curl_once();

}  // namespace kftrain::trainer::mlflow
