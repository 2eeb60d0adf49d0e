// The socket, TLS and HTTP/1.1 side of the trainer's test servers.
#include "trainer/support/http_test_server.h"

#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

namespace trainer_test {
namespace {

constexpr int k_poll_ms = 10;
constexpr int k_read_timeout_ms = 5000;
constexpr std::size_t k_max_request = 4 << 20;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Read and write one accepted connection, in the clear or through TLS.
class Channel {
  public:
    Channel(int fd, SSL* ssl) : m_fd(fd), m_ssl(ssl) {}
    ~Channel() {
        if (m_ssl != nullptr) {
            SSL_shutdown(m_ssl);
            SSL_free(m_ssl);
        }
    }
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    // Wait a while for bytes and read some; <= 0 on end of stream, error or timeout.
    long read(char* buf, std::size_t size) {
        if (m_ssl == nullptr || SSL_pending(m_ssl) == 0) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, k_read_timeout_ms) <= 0) {
                return -1;
            }
        }
        if (m_ssl != nullptr) {
            return SSL_read(m_ssl, buf, static_cast<int>(size));
        }
        return ::recv(m_fd, buf, size, 0);
    }

    void write_all(const std::string& text) {
        std::size_t sent = 0;
        while (sent < text.size()) {
            const long n =
                m_ssl != nullptr
                    ? SSL_write(m_ssl, text.data() + sent, static_cast<int>(text.size() - sent))
                    : ::send(m_fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) {
                return;
            }
            sent += static_cast<std::size_t>(n);
        }
    }

  private:
    int m_fd;
    SSL* m_ssl;
};

// Read until the headers and the Content-Length body are in; false on EOF or error.
bool read_request(Channel& channel, std::string& head, std::string& body) {
    std::string data;
    char buf[65536];
    std::size_t header_end = std::string::npos;
    std::size_t length = 0;
    while (data.size() < k_max_request) {
        if (header_end == std::string::npos) {
            header_end = data.find("\r\n\r\n");
            if (header_end != std::string::npos) {
                head = data.substr(0, header_end);
                const auto lhead = lower(head);
                const auto pos = lhead.find("\r\ncontent-length:");
                length = pos == std::string::npos ? 0 : std::stoul(head.substr(pos + 17));
            }
        }
        if (header_end != std::string::npos && data.size() >= header_end + 4 + length) {
            body = data.substr(header_end + 4, length);
            return true;
        }
        const long n = channel.read(buf, sizeof buf);
        if (n <= 0) {
            return false;
        }
        data.append(buf, static_cast<std::size_t>(n));
    }
    return false;
}

// Fill method, path, query and the headers the server looks at from the request head.
void parse_head(const std::string& head, RecordedRequest& r) {
    std::istringstream lines(head);
    std::string line, target, version;
    std::getline(lines, line);
    std::istringstream(line) >> r.method >> target >> version;
    const auto q = target.find('?');
    r.path = target.substr(0, q);
    r.query = q == std::string::npos ? "" : target.substr(q + 1);
    while (std::getline(lines, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) {
            continue;
        }
        const auto name = lower(line.substr(0, colon));
        const auto value = trim(line.substr(colon + 1));
        if (name == "authorization") {
            r.authorization = value;
        } else if (name == "content-type") {
            r.content_type = value;
        }
    }
}

}  // namespace

// The server's TLS context: its certificate and key, loaded once.
struct HttpTestServer::Tls {
    SSL_CTX* ctx = nullptr;
    explicit Tls(const TlsIdentity& identity) : ctx(SSL_CTX_new(TLS_server_method())) {
        if (ctx == nullptr ||
            SSL_CTX_use_certificate_chain_file(ctx, identity.cert_file.c_str()) != 1 ||
            SSL_CTX_use_PrivateKey_file(ctx, identity.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
            throw std::runtime_error("test server: cannot load " + identity.cert_file);
        }
    }
    ~Tls() { SSL_CTX_free(ctx); }
};

HttpTestServer::HttpTestServer(Route route, ErrorBody error_body, std::optional<TlsIdentity> tls)
    : m_route(std::move(route)), m_error_body(std::move(error_body)) {
    if (tls) {
        m_tls = std::make_unique<Tls>(*tls);
    }
    open_listener();
    m_thread = std::thread([this] { serve(); });
}

HttpTestServer::~HttpTestServer() {
    m_stop = true;
    m_cv.notify_all();
    m_thread.join();
    for (auto& worker : m_workers) {
        worker.join();
    }
    if (m_listen_fd >= 0) {
        ::close(m_listen_fd);
    }
    if (m_reserve_fd >= 0) {
        ::close(m_reserve_fd);
    }
}

// Listen on 127.0.0.1, on a free port the first time and on the same port afterwards.
bool HttpTestServer::open_listener() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(m_port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0) {
        ::close(fd);
        return false;
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    m_port = ntohs(addr.sin_port);
    m_listen_fd = fd;
    return true;
}

// Hold the port bound but not listening, without SO_REUSEADDR: connections are refused and
// no other socket (a trainer's rendezvous port, say) can take the port meanwhile.
void HttpTestServer::reserve_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(m_port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return;
    }
    m_reserve_fd = fd;
}

std::string HttpTestServer::base_url() const {
    return std::string(m_tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(m_port);
}

void HttpTestServer::serve() {
    while (!m_stop) {
        bool refuse = false;
        {
            std::lock_guard lock(m_mutex);
            refuse = m_mode == FailMode::refuse;
        }
        if (refuse && m_listen_fd >= 0) {
            ::close(m_listen_fd);
            m_listen_fd = -1;
            reserve_port();
        } else if (!refuse && m_listen_fd < 0) {
            ::close(m_reserve_fd);
            m_reserve_fd = -1;
            open_listener();
        }
        m_listening = m_listen_fd >= 0;
        if (m_listen_fd < 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(k_poll_ms));
            continue;
        }
        pollfd p{m_listen_fd, POLLIN, 0};
        if (::poll(&p, 1, k_poll_ms) > 0) {
            const int fd = ::accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                // One thread per connection, so a slow answer does not hold up the next.
                m_workers.emplace_back([this, fd] {
                    // TLS writes to a client that hung up (one that refused the certificate or
                    // gave up waiting) raise SIGPIPE, as OpenSSL cannot pass MSG_NOSIGNAL: block
                    // it in this thread only, so the write fails instead. The test's own
                    // signals, and those of the processes it starts, stay as they are.
                    sigset_t pipe;
                    sigemptyset(&pipe);
                    sigaddset(&pipe, SIGPIPE);
                    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
                    handle_connection(fd);
                    ::close(fd);
                });
            }
        }
    }
}

void HttpTestServer::handle_connection(int fd) {
    SSL* ssl = nullptr;
    if (m_tls) {
        ssl = SSL_new(m_tls->ctx);
        SSL_set_fd(ssl, fd);
        timeval timeout{k_read_timeout_ms / 1000, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        if (SSL_accept(ssl) != 1) {
            m_failed_handshakes += 1;
            ERR_clear_error();
            SSL_free(ssl);
            return;
        }
    }
    Channel channel(fd, ssl);
    std::string head, body;
    if (!read_request(channel, head, body)) {
        return;
    }
    m_received += 1;
    RecordedRequest request;
    parse_head(head, request);
    request.raw_body = body;
    const HttpAnswer a = answer(request);
    if (a.status == 0) {
        return;
    }
    const std::string text = a.body.dump();
    std::ostringstream out;
    out << "HTTP/1.1 " << a.status << " X\r\nContent-Type: application/json\r\n"
        << "Content-Length: " << text.size() << "\r\nConnection: close\r\n\r\n"
        << text;
    channel.write_all(out.str());
}

HttpAnswer HttpTestServer::answer(RecordedRequest& request) {
    std::unique_lock lock(m_mutex);
    const FailMode mode = m_fail_count != 0 ? m_mode : FailMode::none;
    if (mode == FailMode::refuse) {
        return HttpAnswer{0, nullptr};  // accepted just before the listener closed: hang up
    }
    if (mode != FailMode::none && m_fail_count > 0) {
        m_fail_count -= 1;
    }
    if (mode == FailMode::slow) {
        m_cv.wait_for(lock, m_slow_delay, [&] { return m_stop.load(); });
    }
    HttpAnswer a;
    if (mode == FailMode::error_500) {
        a = HttpAnswer{500, m_error_body(500, "injected failure")};
    } else if (mode == FailMode::unauthorized ||
               (!m_required_auth.empty() && request.authorization != m_required_auth)) {
        a = HttpAnswer{401, m_error_body(401, "credentials were not accepted")};
    } else {
        a = m_route(request);
    }
    request.status = a.status;
    m_requests.push_back(request);
    return a;
}

void HttpTestServer::set_mode(FailMode mode, int count) {
    std::lock_guard lock(m_mutex);
    m_mode = mode;
    m_fail_count = count;
}

void HttpTestServer::fail(FailMode mode, int count) {
    set_mode(mode, count);
    // Return once the listening socket is in the state asked for.
    poll_until([&] { return m_listening == (mode != FailMode::refuse); });
}

void HttpTestServer::set_slow_delay(std::chrono::milliseconds delay) {
    std::lock_guard lock(m_mutex);
    m_slow_delay = delay;
}

void HttpTestServer::require_authorization(const std::string& value) {
    std::lock_guard lock(m_mutex);
    m_required_auth = value;
}

std::vector<RecordedRequest> HttpTestServer::requests() const {
    std::lock_guard lock(m_mutex);
    return m_requests;
}

int HttpTestServer::count_path(const std::string& path) const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(std::count_if(m_requests.begin(), m_requests.end(),
                                          [&](const auto& r) { return r.path == path; }));
}

}  // namespace trainer_test
