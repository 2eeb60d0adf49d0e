#include "trainer/http/client.h"

#include <curl/curl.h>

#include <mutex>

namespace kftrain::trainer::http {
namespace {

size_t append_body(char* data, size_t size, size_t count, void* user) {
    static_cast<std::string*>(user)->append(data, size * count);
    return size * count;
}

// Stop a transfer when the abort flag is raised (non-zero return aborts).
int check_abort(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    const auto* abort = static_cast<const std::atomic<bool>*>(user);
    return abort != nullptr && abort->load() ? 1 : 0;
}

}  // namespace

void init_curl_once() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HttpClient::HttpClient(std::chrono::milliseconds timeout, const std::atomic<bool>* abort)
    : m_timeout(timeout), m_abort(abort) {
    init_curl_once();
    m_curl = curl_easy_init();
}

HttpClient::~HttpClient() {
    if (m_curl != nullptr) {
        curl_easy_cleanup(m_curl);
    }
}

std::string HttpClient::escape(const std::string& value) {
    char* out = curl_easy_escape(m_curl, value.c_str(), static_cast<int>(value.size()));
    std::string text = out != nullptr ? out : "";
    curl_free(out);
    return text;
}

HttpResponse HttpClient::get(const std::string& url, const RequestAuth& auth) {
    return perform(url, nullptr, auth);
}

HttpResponse HttpClient::post_json(const std::string& url, const std::string& json_body,
                                   const RequestAuth& auth) {
    return perform(url, &json_body, auth);
}

void HttpClient::set_auth(const RequestAuth& auth) {
    if (!auth.username.empty() && !auth.password.empty()) {
        curl_easy_setopt(m_curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        curl_easy_setopt(m_curl, CURLOPT_USERNAME, auth.username.c_str());
        curl_easy_setopt(m_curl, CURLOPT_PASSWORD, auth.password.c_str());
    } else if (!auth.bearer_token.empty()) {
        curl_easy_setopt(m_curl, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(m_curl, CURLOPT_XOAUTH2_BEARER, auth.bearer_token.c_str());
    }
    if (auth.insecure_tls) {
        curl_easy_setopt(m_curl, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(m_curl, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (!auth.ca_file.empty()) {
        curl_easy_setopt(m_curl, CURLOPT_CAINFO, auth.ca_file.c_str());
    }
}

HttpResponse HttpClient::perform(const std::string& url, const std::string* body,
                                 const RequestAuth& auth) {
    HttpResponse response;
    if (m_curl == nullptr) {
        response.transport_error = "libcurl could not be initialised";
        return response;
    }
    curl_easy_reset(m_curl);
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(m_curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(m_curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(m_curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(m_curl, CURLOPT_TIMEOUT_MS, static_cast<long>(m_timeout.count()));
    curl_easy_setopt(m_curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(m_timeout.count()));
    curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(m_curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(m_curl, CURLOPT_XFERINFOFUNCTION, check_abort);
    curl_easy_setopt(m_curl, CURLOPT_XFERINFODATA, m_abort);
    curl_easy_setopt(m_curl, CURLOPT_USERAGENT, "kftrain-trainer");
    set_auth(auth);
    curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
    if (body != nullptr) {
        headers = curl_slist_append(headers, "Content-Type: application/json");
        curl_easy_setopt(m_curl, CURLOPT_POSTFIELDS, body->c_str());
        curl_easy_setopt(m_curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body->size()));
    }
    curl_easy_setopt(m_curl, CURLOPT_HTTPHEADER, headers);
    const CURLcode code = curl_easy_perform(m_curl);
    curl_slist_free_all(headers);
    if (code != CURLE_OK) {
        response.transport_error = error[0] != '\0' ? error : curl_easy_strerror(code);
        response.body.clear();
        return response;
    }
    curl_easy_getinfo(m_curl, CURLINFO_RESPONSE_CODE, &response.status);
    curl_off_t retry_after = 0;
    if (curl_easy_getinfo(m_curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK) {
        response.retry_after = std::chrono::seconds(retry_after);
    }
    return response;
}

}  // namespace kftrain::trainer::http
