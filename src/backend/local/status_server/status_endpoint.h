#pragma once

// The local stand-in for Kubeflow Trainer's status server: HTTPS on 127.0.0.1 for one local
// job, with a CA and a bearer token made for the job, answering every post as Trainer's own
// server does (post_check.h): a thread accepts, and each connection is served on a thread of
// its own (at most 16 at once; at the cap, the oldest that has sent nothing yet is let go for a
// client that waits), so silent clients never delay another's post. The supervisor
// injects the three variables Trainer injects (replica_env.h) and records what the replicas report.

#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend/local/status_server/post_check.h"
#include "backend/local/status_server/tls_identity.h"
#include "util/fd/unique_fd.h"
#include "util/result.h"

namespace kftrain::backend::local {

// Where a job's replicas find the server: KUBEFLOW_TRAINER_SERVER_URL, _CA_CERT, _TOKEN.
struct EndpointAddress {
    std::string url;
    std::string ca_cert;
    std::string token_file;
};

class StatusEndpoint {
  public:
    // Serve the status of job name (namespace ns) on a free loopback port; the CA certificate
    // and the token are written into dir (mode 0600), made anew on every start.
    static util::Result<std::unique_ptr<StatusEndpoint>> start(const std::string& dir,
                                                               const std::string& ns,
                                                               const std::string& name);
    ~StatusEndpoint();
    StatusEndpoint(const StatusEndpoint&) = delete;
    StatusEndpoint& operator=(const StatusEndpoint&) = delete;

    const EndpointAddress& address() const { return m_address; }
    // Return the newest trainerStatus accepted since the last call, if any.
    std::optional<nlohmann::json> take_accepted();
    // Count the posts answered so far, whatever the answer.
    long answered() const { return m_answered; }

  private:
    StatusEndpoint(TlsServerContext ctx, PostTarget target, EndpointAddress address,
                   util::UniqueFd listen_fd);
    // What the accepting thread and one connection's thread share.
    struct ConnectionState {
        std::atomic<bool> done{false};
        std::atomic<bool> heard{false};    // its request's head has arrived
        std::atomic<bool> evicted{false};  // let go for a waiting client
    };
    struct Worker {
        std::thread thread;
        std::shared_ptr<ConnectionState> state;
    };
    void serve();
    // Let go the oldest connection whose request's head has not arrived, unless one is
    // already being let go; false when every connection is mid-request.
    static bool evict_oldest_silent(std::vector<Worker>& workers);
    void handle(util::UniqueFd fd, ConnectionState& state);

    TlsServerContext m_ctx;
    PostTarget m_target;
    EndpointAddress m_address;
    util::UniqueFd m_listen_fd;
    std::atomic<bool> m_stop{false};
    std::atomic<long> m_answered{0};
    std::mutex m_mutex;
    std::optional<nlohmann::json> m_accepted;
    std::thread m_thread;
};

}  // namespace kftrain::backend::local
