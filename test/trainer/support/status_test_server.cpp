// The trainerStatus endpoint, checked against trainer.kubeflow.org_trainjobs.yaml (v2.3.0):
// progressPercentage int32 0..100, estimatedRemainingSeconds int32 >= 0, metrics at most
// 256 {name, value} strings of 1 to 64 characters, lastUpdatedTime required (date-time).
#include "trainer/support/status_test_server.h"

#include <limits>
#include <regex>

namespace trainer_test {
namespace {

using json = nlohmann::json;

constexpr const char* k_path =
    "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team/trainjobs/"
    "job-a/status";

// Answer as the Kubernetes API server does on error: a Status object.
json kubernetes_status(long code, const std::string& message) {
    const char* reason = code == 401 ? "Unauthorized" : code == 422 ? "Invalid" : "InternalError";
    return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason},
            {"code", code}};
}

bool int_in(const json& j, int64_t low, int64_t high) {
    return j.is_number_integer() && j.get<int64_t>() >= low && j.get<int64_t>() <= high;
}

bool short_string(const json& j) {
    return j.is_string() && !j.get<std::string>().empty() && j.get<std::string>().size() <= 64;
}

// Return what is wrong with a metrics list ("" when fine).
std::string check_status_metrics(const json& metrics) {
    if (!metrics.is_array() || metrics.size() > 256) {
        return "metrics must be an array of at most 256 items";
    }
    for (const auto& m : metrics) {
        if (!m.is_object() || m.size() != 2 || !m.contains("name") || !m.contains("value") ||
            !short_string(m["name"]) || !short_string(m["value"])) {
            return "metrics need string name and value of 1 to 64 characters: " + m.dump();
        }
    }
    return "";
}

// Return what is wrong with a trainerStatus object ("" when fine).
std::string check_trainer_status(const json& s) {
    static const std::regex rfc3339(
        R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))");
    const int64_t int32_max = std::numeric_limits<int32_t>::max();
    for (const auto& [key, value] : s.items()) {
        if (key == "progressPercentage" && !int_in(value, 0, 100)) {
            return "progressPercentage must be an integer from 0 to 100: " + value.dump();
        }
        if (key == "estimatedRemainingSeconds" && !int_in(value, 0, int32_max)) {
            return "estimatedRemainingSeconds must be an int32 >= 0: " + value.dump();
        }
        if (key == "metrics") {
            if (auto bad = check_status_metrics(value); !bad.empty()) {
                return bad;
            }
        }
        if (key != "progressPercentage" && key != "estimatedRemainingSeconds" && key != "metrics" &&
            key != "lastUpdatedTime") {
            return "unknown field trainerStatus." + key;
        }
    }
    if (!s.contains("lastUpdatedTime") || !s["lastUpdatedTime"].is_string() ||
        !std::regex_match(s["lastUpdatedTime"].get<std::string>(), rfc3339)) {
        return "lastUpdatedTime is required when trainerStatus is present (RFC 3339)";
    }
    return "";
}

}  // namespace

StatusTestServer::StatusTestServer(const std::string& dir)
    : m_certs(make_test_certificates(dir, "controller")),
      m_other(make_test_certificates(dir, "other")),
      m_http([this](const RecordedRequest& request) { return answer(request); }, kubernetes_status,
             TlsIdentity{m_certs.server_cert, m_certs.server_key}) {}

std::string StatusTestServer::url() const {
    return m_http.base_url() + k_path;
}

std::vector<json> StatusTestServer::statuses() const {
    std::lock_guard lock(m_mutex);
    return m_statuses;
}

std::vector<std::string> StatusTestServer::violations() const {
    std::lock_guard lock(m_mutex);
    return m_violations;
}

HttpAnswer StatusTestServer::answer(const RecordedRequest& request) {
    std::lock_guard lock(m_mutex);
    std::string bad;
    const json body = json::parse(request.raw_body, nullptr, false);
    if (request.path != k_path) {
        return HttpAnswer{404, kubernetes_status(404, "no endpoint " + request.path)};
    }
    if (request.method != "POST" || request.content_type != "application/json") {
        bad = "a post needs POST and Content-Type application/json";
    } else if (!body.is_object() || body.size() != 1 || !body.contains("trainerStatus") ||
               !body["trainerStatus"].is_object()) {
        bad = "the body must be {\"trainerStatus\": {...}}: " + request.raw_body;
    } else {
        bad = check_trainer_status(body["trainerStatus"]);
    }
    if (!bad.empty()) {
        m_violations.push_back(bad);
        return HttpAnswer{422, kubernetes_status(422, bad)};
    }
    m_statuses.push_back(body["trainerStatus"]);
    return HttpAnswer{200, body};
}

}  // namespace trainer_test
