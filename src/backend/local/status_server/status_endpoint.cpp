#include "backend/local/status_server/status_endpoint.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "backend/local/state/state_dir.h"
#include "util/signals/signal_free_thread.h"

namespace kftrain::backend::local {
namespace {

using Clock = std::chrono::steady_clock;

// Trainer's server gives a request 10 s to arrive and its answer 10 s to leave.
constexpr auto k_request_deadline = std::chrono::seconds(10);
constexpr int k_accept_poll_ms = 200;
constexpr int k_slice_ms = 20;  // how soon a connection sees the server stop or let it go
// Connections served at once, each on a thread of its own. When all are taken and another
// client waits, the oldest connection that has not yet sent its request's head is let go (a
// client that connects and says nothing never holds up one that posts); when every one is
// mid-request, new clients wait in the listen queue.
constexpr std::size_t k_max_connections = 16;
constexpr auto k_evict_pause = std::chrono::milliseconds(10);
constexpr auto k_busy_pause = std::chrono::milliseconds(100);  // every slot mid-request
constexpr std::size_t k_max_head = 16 * 1024;
constexpr int k_token_bytes = 32;

util::Result<std::string> new_token() {
    unsigned char bytes[k_token_bytes];
    if (RAND_bytes(bytes, k_token_bytes) != 1) {
        return util::error("status server token: no random bytes");
    }
    std::string hex;
    for (unsigned char b : bytes) {
        hex += fmt::format("{:02x}", b);
    }
    return hex;
}

// Listen on 127.0.0.1 at a port the kernel picks; return the socket and the port.
util::Result<std::pair<util::UniqueFd, int>> listen_loopback() {
    util::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) {
        return util::error(std::string("status server socket: ") + std::strerror(errno));
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd.get(), 64) != 0 ||
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        return util::error(std::string("status server on 127.0.0.1: ") + std::strerror(errno));
    }
    return std::pair<util::UniqueFd, int>{std::move(fd), ntohs(addr.sin_port)};
}

// One accepted TLS connection, read and written under one deadline.
class Connection {
  public:
    Connection(SSL_CTX* ctx, util::UniqueFd fd, const std::atomic<bool>& stop,
               const std::atomic<bool>& evicted)
        : m_fd(std::move(fd)), m_ssl(SSL_new(ctx)), m_stop(stop), m_evicted(evicted) {
        if (m_ssl != nullptr) {
            SSL_set_fd(m_ssl, m_fd.get());
        }
    }
    ~Connection() {
        if (m_ssl != nullptr) {
            SSL_shutdown(m_ssl);
            SSL_free(m_ssl);
        }
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    bool handshake() {
        return m_ssl != nullptr && wait_for([&] { return SSL_accept(m_ssl); });
    }

    // Read more bytes onto buffer; false at the end, on an error or past the deadline.
    bool read_more(std::string& buffer) {
        char chunk[4096];
        int n = 0;
        if (!wait_for([&] { return n = SSL_read(m_ssl, chunk, sizeof chunk); })) {
            return false;
        }
        buffer.append(chunk, static_cast<size_t>(n));
        return true;
    }

    void write_all(const std::string& text) {
        std::size_t sent = 0;
        while (sent < text.size()) {
            int n = 0;
            if (!wait_for([&] {
                    return n = SSL_write(m_ssl, text.data() + sent,
                                         static_cast<int>(text.size() - sent));
                })) {
                return;
            }
            sent += static_cast<size_t>(n);
        }
    }

  private:
    // Run an OpenSSL call on the non-blocking socket until it succeeds (> 0), fails, or the
    // deadline passes, waiting for the socket as it asks.
    template <typename Call>
    bool wait_for(Call call) {
        while (true) {
            const int rc = call();
            if (rc > 0) {
                return true;
            }
            const int err = SSL_get_error(m_ssl, rc);
            short events = 0;
            if (err == SSL_ERROR_WANT_READ) {
                events = POLLIN;
            } else if (err == SSL_ERROR_WANT_WRITE) {
                events = POLLOUT;
            } else {
                return false;
            }
            // Wait for the socket in slices, so that a stopping server is not held up.
            pollfd p{m_fd.get(), events, 0};
            int ready = 0;
            while (ready == 0) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    m_deadline - Clock::now());
                if (left.count() <= 0 || m_stop || m_evicted) {
                    return false;
                }
                ready =
                    ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), k_slice_ms)));
            }
            if (ready < 0) {
                return false;
            }
        }
    }

    util::UniqueFd m_fd;  // closed after m_ssl is freed
    SSL* m_ssl;
    const std::atomic<bool>& m_stop;
    const std::atomic<bool>& m_evicted;
    Clock::time_point m_deadline = Clock::now() + k_request_deadline;
};

}  // namespace

util::Result<std::unique_ptr<StatusEndpoint>> StatusEndpoint::start(const std::string& dir,
                                                                    const std::string& ns,
                                                                    const std::string& name) {
    if (auto made = util::make_private_dir(dir); !made) {
        return util::error(made.error());
    }
    EndpointAddress address{"", dir + "/ca.crt", dir + "/token"};
    auto ctx = make_tls_identity(address.ca_cert);
    if (!ctx) {
        return util::error(ctx.error());
    }
    auto token = new_token();
    if (!token) {
        return util::error(token.error());
    }
    if (auto written = util::write_file_atomic(address.token_file, *token); !written) {
        return util::error(written.error());
    }
    auto listener = listen_loopback();
    if (!listener) {
        return util::error(listener.error());
    }
    address.url =
        fmt::format("https://127.0.0.1:{}{}", listener->second, status_post_path(ns, name));
    return std::unique_ptr<StatusEndpoint>(
        new StatusEndpoint(std::move(*ctx), PostTarget{ns, name, *token}, std::move(address),
                           std::move(listener->first)));
}

StatusEndpoint::StatusEndpoint(TlsServerContext ctx, PostTarget target, EndpointAddress address,
                               util::UniqueFd listen_fd)
    : m_ctx(std::move(ctx)),
      m_target(std::move(target)),
      m_address(std::move(address)),
      m_listen_fd(std::move(listen_fd)) {
    m_thread = util::signal_free_thread([this] { serve(); });
}

StatusEndpoint::~StatusEndpoint() {
    m_stop = true;
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_listen_fd.reset();
    ::unlink(m_address.token_file.c_str());  // the job has ended: nobody posts any more
}

std::optional<nlohmann::json> StatusEndpoint::take_accepted() {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::optional<nlohmann::json> out;
    out.swap(m_accepted);
    return out;
}

void StatusEndpoint::serve() {
    std::vector<Worker> workers;
    auto reap = [&workers](bool all) {
        for (auto it = workers.begin(); it != workers.end();) {
            if (all || it->state->done) {
                it->thread.join();
                it = workers.erase(it);
            } else {
                ++it;
            }
        }
    };
    while (!m_stop) {
        reap(false);
        pollfd p{m_listen_fd.get(), POLLIN, 0};
        if (::poll(&p, 1, k_accept_poll_ms) <= 0) {
            continue;
        }
        if (workers.size() >= k_max_connections) {
            // A client waits and every slot is taken: let the oldest silent one go, and give
            // it a moment to end (the waiting client stays in the listen queue meanwhile).
            const bool going = evict_oldest_silent(workers);
            std::this_thread::sleep_for(going ? k_evict_pause : k_busy_pause);
            continue;
        }
        const int fd = ::accept4(m_listen_fd.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            continue;
        }
        auto state = std::make_shared<ConnectionState>();
        workers.push_back({util::signal_free_thread([this, fd, state] {
                               handle(util::UniqueFd(fd), *state);
                               state->done = true;
                           }),
                           state});
    }
    reap(true);
}

bool StatusEndpoint::evict_oldest_silent(std::vector<Worker>& workers) {
    for (auto& worker : workers) {  // in the order they were accepted
        if (worker.state->evicted) {
            return true;  // one is already on its way out
        }
        if (!worker.state->heard) {
            worker.state->evicted = true;
            return true;
        }
    }
    return false;
}

void StatusEndpoint::handle(util::UniqueFd fd, ConnectionState& state) {
    Connection connection(m_ctx.get(), std::move(fd), m_stop, state.evicted);
    if (!connection.handshake()) {
        return;  // a client that refused the certificate, or no TLS at all
    }
    std::string buffer;
    std::size_t head_end = std::string::npos;
    while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
        if (buffer.size() > k_max_head || !connection.read_more(buffer)) {
            return;
        }
    }
    state.heard = true;  // a request under way: never let go for a waiting client
    auto request = parse_request_head(std::string_view(buffer).substr(0, head_end + 2));
    PostAnswer answer;
    if (!request) {
        answer = {400, failure_status(400, "BadRequest", "Bad request"), std::nullopt};
    } else if (request->chunked) {
        answer = {411, failure_status(411, "BadRequest", "Length required"), std::nullopt};
    } else {
        request->body = buffer.substr(head_end + 4);
        const std::size_t length = request->content_length.value_or(0);
        while (length <= k_max_status_body && request->body.size() < length) {
            if (!connection.read_more(request->body)) {
                return;
            }
        }
        request->body.resize(std::min(request->body.size(), length));
        answer = answer_post(*request, m_target);
    }
    if (answer.trainer_status) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_accepted = std::move(answer.trainer_status);
    }
    connection.write_all(http_answer_text(answer));
    m_answered += 1;
}

}  // namespace kftrain::backend::local
