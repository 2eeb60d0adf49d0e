// The trainer's Prometheus metrics: what it exposes, and its /metrics endpoint under clients
// that behave and clients that do not.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "support/text.h"
#include "trainer/http/client.h"
#include "trainer/metrics/exposition.h"
#include "trainer/metrics/registry.h"
#include "trainer/metrics/server.h"
#include "trainer/startup/options.h"

using kftrain::test::contains;
using namespace kftrain::trainer;
using namespace kftrain::trainer::metrics;

namespace {

// Connect to the server on 127.0.0.1; -1 when it refuses.
int connect_local(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    timeval limit{15, 0};  // a read never blocks a failing test for ever
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    return fd;
}

http::HttpResponse get(int port, const std::string& path) {
    http::init_curl_once();
    http::HttpClient client(std::chrono::milliseconds(15000));
    return client.get("http://127.0.0.1:" + std::to_string(port) + path, {});
}

}  // namespace

TEST_CASE("metrics: a rank's counters, gauges and histograms in the Prometheus text format") {
    TrainerMetrics values;
    values.set_world_size(2);
    values.observe_step(0.02, 0.005, 64);
    values.observe_step(0.5, 0.1, 36);
    const auto text = render_exposition(values.snapshot(), {"mnist \"ddp\"", "1"});
    CHECK(contains(text, "# TYPE kftrain_samples_total counter\n"));
    CHECK(contains(text, "kftrain_samples_total{job=\"mnist \\\"ddp\\\"\",rank=\"1\"} 100\n"));
    CHECK(contains(text, "kftrain_steps_total{job=\"mnist \\\"ddp\\\"\",rank=\"1\"} 2\n"));
    CHECK(contains(text, "kftrain_world_size{job=\"mnist \\\"ddp\\\"\",rank=\"1\"} 2\n"));
    // Buckets are cumulative, le inclusive, and +Inf equals the count.
    CHECK(contains(
        text, "kftrain_step_seconds_bucket{job=\"mnist \\\"ddp\\\"\",rank=\"1\",le=\"0.01\"} 0\n"));
    CHECK(contains(
        text,
        "kftrain_step_seconds_bucket{job=\"mnist \\\"ddp\\\"\",rank=\"1\",le=\"0.025\"} 1\n"));
    CHECK(contains(
        text, "kftrain_step_seconds_bucket{job=\"mnist \\\"ddp\\\"\",rank=\"1\",le=\"0.5\"} 2\n"));
    CHECK(contains(
        text, "kftrain_step_seconds_bucket{job=\"mnist \\\"ddp\\\"\",rank=\"1\",le=\"+Inf\"} 2\n"));
    CHECK(contains(text, "kftrain_step_seconds_sum{job=\"mnist \\\"ddp\\\"\",rank=\"1\"} 0.52\n"));
    CHECK(contains(text,
                   "kftrain_allreduce_seconds_count{job=\"mnist \\\"ddp\\\"\",rank=\"1\"} 2\n"));
    // Nothing reported yet: no loss, and no checkpoint histogram on a rank that writes none.
    CHECK_FALSE(contains(text, "kftrain_loss"));
    CHECK_FALSE(contains(text, "kftrain_checkpoint_seconds"));

    values.set_progress({0.25, 0.9, 0.01, 1.5, 0.75, 12});
    values.set_eval(0.3, 0.88);
    values.observe_checkpoint(2);
    const auto later = render_exposition(values.snapshot(), {"", "0"});
    CHECK(contains(later, "kftrain_loss{rank=\"0\"} 0.25\n"));
    CHECK(contains(later, "kftrain_progress_ratio{rank=\"0\"} 0.75\n"));
    CHECK(contains(later, "kftrain_eta_seconds{rank=\"0\"} 12\n"));
    CHECK(contains(later, "kftrain_eval_accuracy{rank=\"0\"} 0.88\n"));
    CHECK(contains(later, "kftrain_checkpoint_seconds_count{rank=\"0\"} 1\n"));
    // Every family exposed is one that families() documents, each with HELP and TYPE once.
    for (const auto& family : families()) {
        const std::string type = std::string("# TYPE ") + family.name + " ";
        CHECK(later.find(type) == later.rfind(type));
    }
}

TEST_CASE("metrics: label values are escaped and odd numbers spelled as Prometheus reads them") {
    CHECK(escape_label("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
    TrainerMetrics values;
    values.set_progress({std::nan(""), 1.0 / 0.0, 0, 0, 0, 0});
    const auto text = render_exposition(values.snapshot(), {"j", "0"});
    CHECK(contains(text, "kftrain_loss{job=\"j\",rank=\"0\"} NaN\n"));
    CHECK(contains(text, "kftrain_accuracy{job=\"j\",rank=\"0\"} +Inf\n"));
}

TEST_CASE("metrics: requests are answered by method and path") {
    Request r;
    REQUIRE(parse_request_head("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", r));
    CHECK(r.method == "GET");
    CHECK(r.path == "/metrics");
    REQUIRE(parse_request_head("GET http://pod:9400/metrics HTTP/1.1\r\n\r\n", r));
    CHECK(r.path == "/metrics");
    CHECK_FALSE(parse_request_head("GET /metrics\r\n\r\n", r));
    CHECK_FALSE(parse_request_head("\x01\x02 binary", r));
    CHECK_FALSE(parse_request_head(" / HTTP/1.1\r\n\r\n", r));
    const auto body = [] { return std::string("m 1\n"); };
    CHECK(answer({"GET", "/metrics"}, body).status == 200);
    CHECK(answer({"GET", "/"}, body).status == 404);
    const auto post = answer({"POST", "/metrics"}, body);
    CHECK(post.status == 405);
    CHECK(contains(format_response(post), "Allow: GET, HEAD\r\n"));
    const auto head = format_response(answer({"HEAD", "/metrics"}, body));
    CHECK(contains(head, "Content-Length: 4\r\n"));
    CHECK_FALSE(contains(head, "m 1"));
}

TEST_CASE("metrics: the endpoint serves scrapes while other clients stall, send junk or leave") {
    TrainerMetrics values;
    values.observe_step(0.01, 0.001, 32);
    auto server = MetricsServer::start(0, [&values] {
        return render_exposition(values.snapshot(), {"job", "0"});
    });
    REQUIRE(server.ok());
    const int port = (*server)->port();

    auto first = get(port, "/metrics");
    REQUIRE(first.status == 200);
    CHECK(contains(first.body, "kftrain_samples_total{job=\"job\",rank=\"0\"} 32\n"));
    CHECK(get(port, "/other").status == 404);

    // A client that sends half a request and goes away, one that sends binary junk, and one
    // that sends a huge head: each is dropped, and the next scrape is answered.
    const int half = connect_local(port);
    REQUIRE(half >= 0);
    ::send(half, "GET /met", 8, MSG_NOSIGNAL);
    ::close(half);
    const int junk = connect_local(port);
    REQUIRE(junk >= 0);
    const std::string binary("\x00\xff\x13\r\n\r\n", 7);
    ::send(junk, binary.data(), binary.size(), MSG_NOSIGNAL);
    char reply[256] = {};
    CHECK(::recv(junk, reply, sizeof reply - 1, 0) > 0);
    CHECK(contains(reply, "400 Bad Request"));
    ::close(junk);
    const int huge = connect_local(port);
    REQUIRE(huge >= 0);
    const std::string flood(64 * 1024, 'A');
    ::send(huge, flood.data(), flood.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(huge);

    values.observe_step(0.01, 0.001, 32);
    auto second = get(port, "/metrics");
    REQUIRE(second.status == 200);
    CHECK(contains(second.body, "kftrain_samples_total{job=\"job\",rank=\"0\"} 64\n"));
}

TEST_CASE("metrics: a port already taken is an error naming the flag and the port") {
    auto first = MetricsServer::start(0, [] { return std::string(); });
    REQUIRE(first.ok());
    const int port = (*first)->port();
    auto second = MetricsServer::start(port, [] { return std::string(); });
    REQUIRE_FALSE(second.ok());
    CHECK(contains(second.error(), "--metrics-port " + std::to_string(port)));
    CHECK(contains(second.error(), "in use"));
}

TEST_CASE("metrics: --metrics-port takes a port number, 0 for none") {
    CHECK(parse_command_line({})->train.metrics_port == 0);
    CHECK(parse_command_line({"--metrics-port", "9400"})->train.metrics_port == 9400);
    const auto bad = parse_command_line({"--metrics-port", "70000"});
    REQUIRE_FALSE(bad.ok());
    CHECK(contains(bad.error(), "--metrics-port"));
    CHECK(contains(bad.error(), "70000"));
}

TEST_CASE("metrics: clients that hold connections open without a request do not stall scrapes") {
    TrainerMetrics values;
    auto server = MetricsServer::start(0, [&values] {
        return render_exposition(values.snapshot(), {"job", "0"});
    });
    REQUIRE(server.ok());
    const int port = (*server)->port();
    // Forty silent clients, more than the server serves at once: a scrape is still answered
    // (the client's own limit is far below what the silent ones could hold it up).
    std::vector<int> silent;
    for (int i = 0; i < 40; ++i) {
        silent.push_back(connect_local(port));
        REQUIRE(silent.back() >= 0);
    }
    http::init_curl_once();
    http::HttpClient client(std::chrono::milliseconds(2000));
    const auto scrape = client.get("http://127.0.0.1:" + std::to_string(port) + "/metrics", {});
    CHECK(scrape.status == 200);
    // The oldest silent client made room, or was hung up on once its time was up.
    char byte = 0;
    CHECK(::recv(silent.front(), &byte, 1, 0) == 0);
    for (int fd : silent) {
        ::close(fd);
    }
}

TEST_CASE(
    "metrics: a client waiting for a slot held by answered clients does not spin the server") {
    auto server = MetricsServer::start(0, [] { return std::string("m 1\n"); });
    REQUIRE(server.ok());
    const int port = (*server)->port();
    // Sixteen clients, as many as the server serves at once, send a whole request and then
    // neither read nor close: every slot holds an answered client until its time is up.
    std::vector<int> held;
    for (int i = 0; i < 16; ++i) {
        held.push_back(connect_local(port));
        REQUIRE(held.back() >= 0);
        const std::string request = "GET /metrics HTTP/1.1\r\n\r\n";
        REQUIRE(::send(held.back(), request.data(), request.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(request.size()));
    }
    // One more client waits in the listen queue meanwhile. A server that polls its listener
    // while it cannot take the client wakes at once, again and again: a core at 100% that
    // training loses. This process's CPU time over the wait says which.
    rusage before{};
    ::getrusage(RUSAGE_SELF, &before);
    const auto start = std::chrono::steady_clock::now();
    http::init_curl_once();
    http::HttpClient client(std::chrono::milliseconds(10000));
    const auto scrape = client.get("http://127.0.0.1:" + std::to_string(port) + "/metrics", {});
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage after{};
    ::getrusage(RUSAGE_SELF, &after);
    CHECK(scrape.status == 200);
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    const double cpu = seconds(after.ru_utime) - seconds(before.ru_utime) +
                       seconds(after.ru_stime) - seconds(before.ru_stime);
    INFO("cpu " << cpu << " s over " << wall << " s");
    CHECK(cpu < 0.25 * wall + 0.05);
    for (int fd : held) {
        ::close(fd);
    }
}

TEST_CASE("metrics: an answer is followed by a clean end, even with request bytes left unread") {
    auto server = MetricsServer::start(0, [] { return std::string("m 1\n"); });
    REQUIRE(server.ok());
    const int fd = connect_local((*server)->port());
    REQUIRE(fd >= 0);
    // A POST with a large body: answered 405, and the stream ends without a reset.
    const std::string post =
        "POST /metrics HTTP/1.1\r\nContent-Length: 200000\r\n\r\n" + std::string(200000, 'x');
    std::size_t sent = 0;
    while (sent < post.size()) {
        const ssize_t n = ::send(fd, post.data() + sent, post.size() - sent, MSG_NOSIGNAL);
        REQUIRE(n > 0);
        sent += static_cast<std::size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    std::string reply;
    char chunk[4096];
    ssize_t n = 0;
    while ((n = ::recv(fd, chunk, sizeof chunk, 0)) > 0) {
        reply.append(chunk, static_cast<std::size_t>(n));
    }
    CHECK(n == 0);  // an orderly end, not ECONNRESET (-1)
    CHECK(contains(reply, "405 Method Not Allowed"));
    ::close(fd);
}
