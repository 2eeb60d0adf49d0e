// trainerStatus posts against a real HTTPS server with certificates the test makes.
#include "trainer/trainer_status/poster.h"

#include <catch2/catch.hpp>

#include "support/files.h"
#include "trainer/support/status_test_server.h"
#include "trainer/support/test_warnings.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer::trainer_status;
using namespace std::chrono_literals;
using trainer_test::FailMode;
using trainer_test::poll_until;
using trainer_test::StatusTestServer;
using trainer_test::Warnings;

namespace {

// A steady clock the test moves by hand.
struct FakeClock {
    std::atomic<int64_t> ms{1000000};
    void advance(std::chrono::milliseconds d) { ms += d.count(); }
    StatusPoster::Clock fn() {
        return
            [this] { return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms)); };
    }
};

// Hold a server, its token file and a poster aimed at them.
struct Fixture {
    const std::string dir = make_temp_dir();
    StatusTestServer server{dir};
    std::string token_file = dir + "/token";
    FakeClock clock;
    Warnings warnings;

    Fixture() { write_token("tok-1"); }
    void write_token(const std::string& token) { write_file(token_file, token + "\n"); }
    ServerConfig config() const { return ServerConfig{server.url(), server.ca_cert(), token_file}; }
    std::unique_ptr<StatusPoster> poster(PosterOptions options = {}) {
        return poster_for(config(), options);
    }
    std::unique_ptr<StatusPoster> poster_for(const ServerConfig& c, PosterOptions options = {}) {
        return std::make_unique<StatusPoster>(c, warnings.sink(), options, clock.fn());
    }
};

TrainerStatus status_at(int percent) {
    TrainerStatus s;
    s.progress_percentage = percent;
    s.estimated_remaining_seconds = 100 - percent;
    s.metrics = {{"loss", "0.5000"}};
    s.updated = std::chrono::system_clock::time_point(std::chrono::seconds(1781233200 + percent));
    return s;
}

// Give the poster one status and wait until it has been sent.
void post_and_settle(StatusPoster& poster, const TrainerStatus& status) {
    poster.update(status);
    REQUIRE(poll_until([&] { return poster.idle(); }));
}

std::vector<int> percentages(const StatusTestServer& server) {
    std::vector<int> out;
    for (const auto& s : server.statuses()) {
        out.push_back(s.value("progressPercentage", -1));
    }
    return out;
}

}  // namespace

TEST_CASE("a post carries the trainerStatus JSON and the token file's bearer token over HTTPS",
          "[trainer][trainer_status]") {
    Fixture f;
    f.server.http().require_authorization("Bearer tok-1");
    auto poster = f.poster();
    post_and_settle(*poster, status_at(10));
    const auto requests = f.server.http().requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0].method == "POST");
    CHECK(f.server.url() == f.server.http().base_url() + requests[0].path);
    CHECK(requests[0].content_type == "application/json");
    CHECK(requests[0].authorization == "Bearer tok-1");
    CHECK(requests[0].raw_body == trainer_status_body(status_at(10)));
    CHECK(requests[0].status == 200);
    CHECK(f.server.violations().empty());
    CHECK(poster->stats().posts == 1);
    CHECK(f.warnings.all().empty());
}

TEST_CASE("the token file is read again for every post, so a rotated token is sent",
          "[trainer][trainer_status]") {
    Fixture f;
    auto poster = f.poster();
    post_and_settle(*poster, status_at(10));
    f.write_token("tok-2-rotated");
    f.server.http().require_authorization("Bearer tok-2-rotated");
    f.clock.advance(5s);
    post_and_settle(*poster, status_at(20));
    const auto requests = f.server.http().requests();
    REQUIRE(requests.size() == 2);
    CHECK(requests[0].authorization == "Bearer tok-1");
    CHECK(requests[1].authorization == "Bearer tok-2-rotated");
    CHECK(requests[1].status == 200);
    CHECK(f.warnings.all().empty());
}

TEST_CASE("updates every second post once per 5 s, then the finish posts at once",
          "[trainer][trainer_status]") {
    Fixture f;
    auto poster = f.poster();
    for (int second = 0; second < 60; ++second) {
        post_and_settle(*poster, status_at(second));
        f.clock.advance(1s);
    }
    poster->finish(status_at(100));
    poster->update(status_at(61));  // after the finish: ignored
    poster->close();
    CHECK(percentages(f.server) ==
          std::vector<int>{0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 100});
    CHECK(poster->stats().posts == 13);
    CHECK(f.server.violations().empty());
}

TEST_CASE("a burst of updates between posts sends only the newest, as the last post",
          "[trainer][trainer_status]") {
    Fixture f;
    auto poster = f.poster();
    post_and_settle(*poster, status_at(1));
    for (int i = 2; i <= 99; ++i) {
        poster->update(status_at(i));
    }
    poster->close();  // as after SIGTERM: no finish event, the newest status goes out
    CHECK(percentages(f.server) == std::vector<int>{1, 99});
}

TEST_CASE("a CA that did not sign the server's certificate refuses it: nothing is posted",
          "[trainer][trainer_status]") {
    Fixture f;
    auto config = f.config();
    config.ca_cert = f.server.wrong_ca_cert();
    auto poster = f.poster_for(config);
    post_and_settle(*poster, status_at(10));
    CHECK(f.server.http().requests().empty());
    CHECK(poll_until([&] { return f.server.http().failed_handshakes() == 1; }));
    const auto warnings = f.warnings.all();
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::StartsWith("trainerStatus not posted to " + f.server.url() +
                                              ": SSL certificate problem"));
    CHECK(poster->stats().failures == 1);
}

TEST_CASE("a dead endpoint is warned about once, then at most once a minute",
          "[trainer][trainer_status]") {
    Fixture f;
    f.server.http().fail(FailMode::refuse);
    auto poster = f.poster();
    for (int i = 0; i < 30; ++i) {  // one post every 5 s for 150 s
        post_and_settle(*poster, status_at(i));
        f.clock.advance(5s);
    }
    const auto warnings = f.warnings.all();
    REQUIRE(warnings.size() == 3);  // at 0 s, 60 s and 120 s
    CHECK_THAT(warnings[0], Catch::StartsWith("trainerStatus not posted to " + f.server.url()));
    CHECK_THAT(warnings[0], Catch::EndsWith("; training goes on, and further failures are "
                                            "reported at most once every 60s"));
    CHECK_THAT(warnings[1],
               Catch::StartsWith("trainerStatus still not posted to " + f.server.url() +
                                 ": 12 more posts failed, the last: "));
    CHECK_THAT(warnings[2], Catch::Contains(": 12 more posts failed, the last: "));
    CHECK(poster->stats().failures == 30);
    CHECK(poster->stats().posts == 0);
}

TEST_CASE("a refused post is warned with the server's message", "[trainer][trainer_status]") {
    Fixture f;
    f.server.http().fail(FailMode::unauthorized);
    auto poster = f.poster();
    post_and_settle(*poster, status_at(10));
    REQUIRE(f.warnings.all().size() == 1);
    CHECK_THAT(f.warnings.all()[0],
               Catch::Contains(": HTTP 401: credentials were not accepted; training goes on"));
}

TEST_CASE("a missing token file fails the post, not the caller", "[trainer][trainer_status]") {
    Fixture f;
    auto config = f.config();
    config.token_file = f.dir + "/no-token";
    auto poster = f.poster_for(config);
    post_and_settle(*poster, status_at(10));
    CHECK(f.server.http().received() == 0);
    REQUIRE(f.warnings.all().size() == 1);
    CHECK_THAT(f.warnings.all()[0], Catch::Contains(": token file " + config.token_file +
                                                    ": cannot open; training goes on"));
}

TEST_CASE("a slow endpoint never holds up updates, and close gives up after its budget",
          "[trainer][trainer_status]") {
    Fixture f;
    f.server.http().set_slow_delay(600s);
    f.server.http().fail(FailMode::slow);
    PosterOptions options;
    options.request_timeout = 600s;
    options.flush_budget = 200ms;
    auto poster = f.poster(options);
    poster->update(status_at(1));
    REQUIRE(poll_until([&] { return f.server.http().received() == 1; }));
    for (int i = 2; i < 1000; ++i) {  // returns although the first post is still pending
        poster->update(status_at(i % 100));
    }
    poster->finish(status_at(100));
    poster->close();  // returns although the server still holds the first post
    CHECK(f.server.statuses().empty());
    CHECK(poster->stats().flush_cut_short);
    const auto warnings = f.warnings.all();
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "trainerStatus: the last post to " + f.server.url() +
                             " was not sent within the 0.2s limit at exit");
}
