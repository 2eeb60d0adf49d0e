#pragma once

#include <atomic>
#include <chrono>
#include <string>

namespace kftrain::trainer::http {

// Hold one HTTP answer; status 0 means no answer (transport_error says why).
struct HttpResponse {
    long status = 0;
    std::string body;
    std::string transport_error;
    // The server's Retry-After, when it sent one (429, 503).
    std::chrono::seconds retry_after{0};
};

// Say how a request authenticates and which servers it trusts.
struct RequestAuth {
    // Basic auth when both are set, else a bearer token when set, else none.
    std::string username;
    std::string password;
    std::string bearer_token;
    // Verify the server with this CA bundle (PEM) instead of the system's; empty: the system's.
    std::string ca_file;
    // Skip verifying the server's certificate (MLFLOW_TRACKING_INSECURE_TLS).
    bool insecure_tls = false;
};

// Send JSON requests over one reused libcurl handle; one thread at a time.
class HttpClient {
  public:
    // timeout bounds connecting and the whole request; abort, when set, cuts a request short.
    HttpClient(std::chrono::milliseconds timeout, const std::atomic<bool>* abort = nullptr);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // GET url (its query already URL-encoded).
    HttpResponse get(const std::string& url, const RequestAuth& auth);
    // POST a JSON body to url.
    HttpResponse post_json(const std::string& url, const std::string& json_body,
                           const RequestAuth& auth);
    // Return a query value URL-encoded.
    std::string escape(const std::string& value);

  private:
    HttpResponse perform(const std::string& url, const std::string* body, const RequestAuth& auth);
    void set_auth(const RequestAuth& auth);

    std::chrono::milliseconds m_timeout;
    const std::atomic<bool>* m_abort;
    void* m_curl = nullptr;  // a CURL easy handle
};

// Initialise libcurl once per process; call before starting threads that use it.
void init_curl_once();

}  // namespace kftrain::trainer::http
