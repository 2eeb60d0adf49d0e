#pragma once

// An HTTPS test server standing in for Kubeflow Trainer's trainerStatus endpoint: it presents
// a certificate the test made, checks each post against the TrainJob CRD's trainerStatus
// schema, records it and fails on command.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trainer/support/http_test_server.h"
#include "trainer/support/tls_test_certs.h"

namespace trainer_test {

// Serve the trainerStatus endpoint on a free loopback port, over TLS.
class StatusTestServer {
  public:
    // Make the certificates in dir: the server's CA and another, unrelated one.
    explicit StatusTestServer(const std::string& dir);

    // Return the endpoint, as KUBEFLOW_TRAINER_SERVER_URL would name it.
    std::string url() const;
    // Return the CA file that verifies this server (KUBEFLOW_TRAINER_SERVER_CA_CERT).
    const std::string& ca_cert() const { return m_certs.ca_cert; }
    // Return a CA file that does not verify this server.
    const std::string& wrong_ca_cert() const { return m_other.ca_cert; }
    // Reach the HTTP side: failure modes, required authorization, requests, handshakes.
    HttpTestServer& http() { return m_http; }
    const HttpTestServer& http() const { return m_http; }
    // Return the trainerStatus objects of the posts accepted, in arrival order.
    std::vector<nlohmann::json> statuses() const;
    // Return what broke the trainerStatus schema or the endpoint's protocol, one line each.
    std::vector<std::string> violations() const;

  private:
    HttpAnswer answer(const RecordedRequest& request);

    TestCertificates m_certs;
    TestCertificates m_other;
    mutable std::mutex m_mutex;
    std::vector<nlohmann::json> m_statuses;
    std::vector<std::string> m_violations;
    HttpTestServer m_http;  // last: its threads stop before the state above goes
};

}  // namespace trainer_test
