#include "trainer/trainer_status/config.h"

#include <catch2/catch.hpp>
#include <map>

#include "support/files.h"
#include "trainer/support/fake_env.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer;
using namespace kftrain::trainer::trainer_status;
using trainer_test::env_of;

namespace {

const std::map<std::string, std::string> k_injected = {
    {"KUBEFLOW_TRAINER_SERVER_URL", "https://trainer-controller.kubeflow:10443/status/ns/job"},
    {"KUBEFLOW_TRAINER_SERVER_CA_CERT", "/var/run/secrets/trainer/ca.crt"},
    {"KUBEFLOW_TRAINER_SERVER_TOKEN", "/var/run/secrets/trainer/token"}};

}  // namespace

TEST_CASE("the controller's three variables turn trainerStatus posts on",
          "[trainer][trainer_status]") {
    const auto config = read_server_config(env_of(k_injected));
    REQUIRE(config.ok());
    REQUIRE(config->has_value());
    CHECK((*config)->url == "https://trainer-controller.kubeflow:10443/status/ns/job");
    CHECK((*config)->ca_cert == "/var/run/secrets/trainer/ca.crt");
    CHECK((*config)->token_file == "/var/run/secrets/trainer/token");
    const auto none = read_server_config(env_of({}));
    REQUIRE(none.ok());
    CHECK_FALSE(none->has_value());
}

TEST_CASE("a half-set or plain-http trainerStatus endpoint is named", "[trainer][trainer_status]") {
    auto half = k_injected;
    half.erase("KUBEFLOW_TRAINER_SERVER_TOKEN");
    half["KUBEFLOW_TRAINER_SERVER_CA_CERT"] = "";
    const auto missing = read_server_config(env_of(half));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error() ==
          "KUBEFLOW_TRAINER_SERVER_CA_CERT, KUBEFLOW_TRAINER_SERVER_TOKEN must be set too, as "
          "Kubeflow Trainer sets all three");
    auto plain = k_injected;
    plain["KUBEFLOW_TRAINER_SERVER_URL"] = "http://controller/status";
    const auto http = read_server_config(env_of(plain));
    REQUIRE_FALSE(http.ok());
    CHECK(http.error() ==
          "KUBEFLOW_TRAINER_SERVER_URL must be an https:// URL (got http://controller/status)");
}

TEST_CASE("the token is read from its file each time, without surrounding white space",
          "[trainer][trainer_status]") {
    const std::string dir = make_temp_dir();
    const auto path = dir + "/token";
    write_file(path, "eyJhbGciOi.first\n");
    CHECK(*read_token(path) == "eyJhbGciOi.first");
    write_file(path, "  eyJhbGciOi.second  ");
    CHECK(*read_token(path) == "eyJhbGciOi.second");
    write_file(path, "\n");
    CHECK(read_token(path).error() == "token file " + path + ": empty");
    CHECK(read_token(dir + "/missing").error() == "token file " + dir + "/missing: cannot open");
}
