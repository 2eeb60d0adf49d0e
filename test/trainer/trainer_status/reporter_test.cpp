// The reporter: which ranks and environments post, and progress events in, posts out.
#include "trainer/trainer_status/reporter.h"

#include <catch2/catch.hpp>
#include <map>

#include "support/files.h"
#include "trainer/support/fake_env.h"
#include "trainer/support/status_test_server.h"
#include "trainer/support/test_warnings.h"
#include "wire/progress_events.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer;
using namespace kftrain::trainer::trainer_status;
using trainer_test::env_of;
using trainer_test::poll_until;
using trainer_test::StatusTestServer;
using trainer_test::Warnings;
namespace event = kftrain::wire::event;
namespace field = kftrain::wire::field;

namespace {

std::map<std::string, std::string> injected(const StatusTestServer& server,
                                            const std::string& token_file) {
    return {{"KUBEFLOW_TRAINER_SERVER_URL", server.url()},
            {"KUBEFLOW_TRAINER_SERVER_CA_CERT", server.ca_cert()},
            {"KUBEFLOW_TRAINER_SERVER_TOKEN", token_file}};
}

}  // namespace

TEST_CASE("only rank 0 posts, and only when the controller's variables are all set",
          "[trainer][trainer_status]") {
    const std::string dir = make_temp_dir();
    StatusTestServer server(dir);
    Warnings warnings;
    const auto env = env_of(injected(server, dir + "/token"));
    CHECK(make_status_reporter(0, env, warnings.sink())->active());
    CHECK_FALSE(make_status_reporter(1, env, warnings.sink())->active());
    CHECK_FALSE(make_status_reporter(0, env_of({}), warnings.sink())->active());
    CHECK(warnings.all().empty());
    auto half = injected(server, dir + "/token");
    half.erase("KUBEFLOW_TRAINER_SERVER_CA_CERT");
    CHECK_FALSE(make_status_reporter(0, env_of(half), warnings.sink())->active());
    CHECK(warnings.all() ==
          std::vector<std::string>{"trainerStatus posts off: KUBEFLOW_TRAINER_SERVER_CA_CERT must "
                                   "be set too, as Kubeflow Trainer sets all three"});
}

TEST_CASE("a run's events post the start at once and the finish as the last post at 100%",
          "[trainer][trainer_status]") {
    const std::string dir = make_temp_dir();
    StatusTestServer server(dir);
    write_file(dir + "/token", "tok");
    Warnings warnings;
    {
        auto reporter =
            make_status_reporter(0, env_of(injected(server, dir + "/token")), warnings.sink());
        reporter->on_event(event::k_start, {{field::k_epochs, 1}, {field::k_steps_per_epoch, 4}});
        REQUIRE(poll_until([&] { return server.statuses().size() == 1; }));
        for (int step = 1; step <= 4; ++step) {  // within 5 s of the start: held back, mostly
            reporter->on_event(event::k_progress, {{field::k_epoch, 1},
                                                   {field::k_epochs, 1},
                                                   {field::k_steps_per_epoch, 4},
                                                   {field::k_global_step, step},
                                                   {field::k_loss, 1.0 / step},
                                                   {field::k_eta_s, 4.0 - step}});
        }
        reporter->on_event(event::k_warning, {{field::k_message, "not for trainerStatus"}});
        reporter->on_event(event::k_finish, {{field::k_epochs, 1},
                                             {field::k_global_step, 4},
                                             {field::k_loss, 0.25},
                                             {field::k_accuracy, 0.75},
                                             {field::k_samples_per_sec, 100.0}});
    }  // the reporter's end sends the last post
    const auto statuses = server.statuses();
    REQUIRE(statuses.size() >= 2);
    CHECK(statuses.front()["progressPercentage"] == 0);
    CHECK(statuses.back()["progressPercentage"] == 100);
    CHECK(statuses.back()["estimatedRemainingSeconds"] == 0);
    CHECK(statuses.back()["metrics"][0] == nlohmann::json{{"name", "loss"}, {"value", "0.2500"}});
    CHECK(server.violations().empty());
    CHECK(warnings.all().empty());
}
