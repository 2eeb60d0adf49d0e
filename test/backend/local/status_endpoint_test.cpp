// The local status server's connections: clients that connect and say nothing must not keep a
// replica's post waiting (Trainer's own server serves each connection on its own).
#include "backend/local/status_server/status_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <vector>

#include "support/files.h"
#include "trainer/http/client.h"

using namespace kftrain;

namespace {

// Connect to 127.0.0.1:port and say nothing; -1 when refused.
int connect_silent(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("the local status server answers a post while other clients connect and say nothing",
          "[local][status-server]") {
    auto endpoint = backend::local::StatusEndpoint::start(test::make_temp_dir() + "/status",
                                                          "default", "silent");
    REQUIRE(endpoint.ok());
    const auto& address = (*endpoint)->address();
    const int port = std::stoi(address.url.substr(address.url.rfind(':') + 1));
    // More silent clients than the server serves at once (16): each would hold its slot for
    // its whole 10 s deadline, and the post would wait in the listen queue behind them.
    std::vector<int> silent;
    for (int i = 0; i < 20; ++i) {
        silent.push_back(connect_silent(port));
        REQUIRE(silent.back() >= 0);
    }
    trainer::http::init_curl_once();
    // A post's own limit, far below what the silent clients could hold it up.
    trainer::http::HttpClient client(std::chrono::milliseconds(3000));
    trainer::http::RequestAuth auth;
    auth.bearer_token = read_all(address.token_file);
    auth.ca_file = address.ca_cert;
    const auto answer = client.post_json(
        address.url,
        R"({"trainerStatus":{"progressPercentage":12,"lastUpdatedTime":"2026-11-28T10:00:00Z"}})",
        auth);
    INFO(answer.transport_error);
    CHECK(answer.status == 200);
    auto accepted = (*endpoint)->take_accepted();
    REQUIRE(accepted);
    CHECK((*accepted)["progressPercentage"] == 12);
    for (int fd : silent) {  // open until now: answered while they were connected
        ::close(fd);
    }
}
