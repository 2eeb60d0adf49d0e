// The socket and HTTP/1.1 side of the MLflow test server; endpoints are in
// mlflow_test_handlers.cpp.
#include "mlflow_test_server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace trainer_test {
namespace {

constexpr int k_poll_ms = 10;
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

// Read from fd until the headers and the Content-Length body are in; false on EOF or error.
bool read_request(int fd, std::string& head, std::string& body) {
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
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 5000) <= 0) {
            return false;
        }
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
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

void send_all(int fd, const std::string& text) {
    std::size_t sent = 0;
    while (sent < text.size()) {
        const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) {
            return;
        }
        sent += static_cast<std::size_t>(n);
    }
}

}  // namespace

std::vector<double> FakeRun::values(const std::string& key) const {
    std::vector<double> out;
    for (const auto& m : metrics) {
        if (m.value("key", "") == key) {
            out.push_back(m["value"].get<double>());
        }
    }
    return out;
}

MlflowTestServer::MlflowTestServer() {
    open_listener();
    m_thread = std::thread([this] { serve(); });
}

MlflowTestServer::~MlflowTestServer() {
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
bool MlflowTestServer::open_listener() {
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
void MlflowTestServer::reserve_port() {
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

std::string MlflowTestServer::uri() const {
    return "http://127.0.0.1:" + std::to_string(m_port);
}

void MlflowTestServer::serve() {
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
                    handle_connection(fd);
                    ::close(fd);
                });
            }
        }
    }
}

void MlflowTestServer::handle_connection(int fd) {
    std::string head, body;
    if (!read_request(fd, head, body)) {
        return;
    }
    RecordedRequest request;
    parse_head(head, request);
    request.raw_body = body;
    const Answer a = answer(request);
    if (a.status == 0) {
        return;
    }
    const std::string text = a.body.dump();
    std::ostringstream out;
    out << "HTTP/1.1 " << a.status << " X\r\nContent-Type: application/json\r\n"
        << "Content-Length: " << text.size() << "\r\nConnection: close\r\n\r\n"
        << text;
    send_all(fd, out.str());
}

void MlflowTestServer::set_mode(FailMode mode, int count) {
    std::lock_guard lock(m_mutex);
    m_mode = mode;
    m_fail_count = count;
}

void MlflowTestServer::fail(FailMode mode, int count) {
    set_mode(mode, count);
    // Return once the listening socket is in the state asked for.
    poll_until([&] { return m_listening == (mode != FailMode::refuse); });
}

void MlflowTestServer::set_slow_delay(std::chrono::milliseconds delay) {
    std::lock_guard lock(m_mutex);
    m_slow_delay = delay;
}

void MlflowTestServer::require_authorization(const std::string& value) {
    std::lock_guard lock(m_mutex);
    m_required_auth = value;
}

std::vector<RecordedRequest> MlflowTestServer::requests() const {
    std::lock_guard lock(m_mutex);
    return m_requests;
}

std::vector<FakeRun> MlflowTestServer::runs() const {
    std::lock_guard lock(m_mutex);
    return m_runs;
}

std::map<std::string, std::string> MlflowTestServer::experiments() const {
    std::lock_guard lock(m_mutex);
    return m_experiments;
}

std::vector<std::string> MlflowTestServer::violations() const {
    std::lock_guard lock(m_mutex);
    return m_violations;
}

int MlflowTestServer::count(const std::string& endpoint) const {
    std::lock_guard lock(m_mutex);
    const std::string path = "/api/2.0/mlflow/" + endpoint;
    return static_cast<int>(std::count_if(m_requests.begin(), m_requests.end(),
                                          [&](const auto& r) { return r.path == path; }));
}

}  // namespace trainer_test
