#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/local/status_server/post_check.h"

using namespace kftrain::backend::local;
using nlohmann::json;

namespace {

const PostTarget k_target{"default", "pyddp", "s3cret"};

PostRequest post(const std::string& body, const std::string& auth = "Bearer s3cret",
                 const std::string& path = status_post_path("default", "pyddp")) {
    PostRequest r;
    r.method = "POST";
    r.path = path;
    r.authorization = auth;
    r.content_length = body.size();
    r.body = body;
    return r;
}

json status_body(json trainer_status) {
    return json{{"trainerStatus", std::move(trainer_status)}};
}

}  // namespace

TEST_CASE("a well-formed trainerStatus post is accepted and echoed as Trainer's server does",
          "[local][status-server]") {
    const auto answer =
        answer_post(post(status_body({{"progressPercentage", 45},
                                      {"estimatedRemainingSeconds", 120},
                                      {"metrics", {{{"name", "loss"}, {"value", "0.15"}}}},
                                      {"lastUpdatedTime", "2026-06-12T03:00:00.123456+02:00"}})
                             .dump()),
                    k_target);
    CHECK(answer.code == 200);
    REQUIRE(answer.trainer_status);
    CHECK((*answer.trainer_status)["progressPercentage"] == 45);
    CHECK((*answer.trainer_status)["lastUpdatedTime"] == "2026-06-12T01:00:00Z");  // UTC, seconds
    CHECK(answer.body == status_body(*answer.trainer_status));
    // A body without trainerStatus changes nothing and is echoed.
    const auto empty = answer_post(post("{}"), k_target);
    CHECK(empty.code == 200);
    CHECK_FALSE(empty.trainer_status);
}

TEST_CASE("a post without the job's bearer token, or for another job, is 403 Forbidden",
          "[local][status-server]") {
    const std::string body = status_body({{"lastUpdatedTime", "2026-06-12T03:00:00Z"}}).dump();
    for (const std::string auth : {"", "Bearer wrong", "Basic s3cret", "Bearer s3cret extra"}) {
        const auto answer = answer_post(post(body, auth), k_target);
        CHECK(answer.code == 403);
        CHECK(answer.body["reason"] == "Forbidden");
        CHECK(answer.body["status"] == "Failure");
        CHECK_FALSE(answer.trainer_status);
    }
    CHECK(answer_post(post(body, "  bearer   s3cret "), k_target).code == 200);
    CHECK(answer_post(post(body, "Bearer s3cret", status_post_path("default", "other")), k_target)
              .code == 403);
}

TEST_CASE("a post to another path or with another method is 404, an oversized one 413",
          "[local][status-server]") {
    auto get = post("{}");
    get.method = "GET";
    CHECK(answer_post(get, k_target).code == 404);
    CHECK(answer_post(post("{}", "Bearer s3cret", "/status"), k_target).code == 404);
    auto big = post("{}");
    big.content_length = k_max_status_body + 1;
    const auto answer = answer_post(big, k_target);
    CHECK(answer.code == 413);
    CHECK(answer.body["message"] == "Payload too large");
}

TEST_CASE("a body that is not the request's JSON shape is 422 Invalid payload",
          "[local][status-server]") {
    for (const std::string body :
         {"", "not json", "[]", R"({"trainerStatus": 5})",
          R"({"trainerStatus": {"progressPercentage": 45.5}})",
          R"({"trainerStatus": {"progressPercentage": "45"}})",
          R"({"trainerStatus": {"progressPercentage": 4294967296}})",
          R"({"trainerStatus": {"metrics": [{"name": "loss", "value": 0.5}]}})",
          R"({"trainerStatus": {"lastUpdatedTime": "yesterday"}})"}) {
        INFO(body);
        const auto answer = answer_post(post(body), k_target);
        CHECK(answer.code == 422);
        CHECK(answer.body["message"] == "Invalid payload");
    }
}

TEST_CASE("a post breaking the TrainJob CRD's rules is 422 with the API server's words",
          "[local][status-server]") {
    const auto high = answer_post(
        post(status_body({{"progressPercentage", 250}, {"lastUpdatedTime", "2026-06-12T03:00:00Z"}})
                 .dump()),
        k_target);
    CHECK(high.code == 422);
    CHECK(high.body["message"] ==
          "TrainJob.trainer.kubeflow.org \"pyddp\" is invalid: "
          "status.trainerStatus.progressPercentage: Invalid value: 250: "
          "status.trainerStatus.progressPercentage in body should be less than or equal to 100");
    const auto several = answer_post(
        post(status_body({{"estimatedRemainingSeconds", -1},
                          {"metrics", {{{"name", std::string(65, 'x')}, {"value", ""}}}}})
                 .dump()),
        k_target);
    CHECK(several.code == 422);
    const std::string message = several.body["message"];
    CHECK(message.find("is invalid: [") != std::string::npos);
    CHECK(message.find("estimatedRemainingSeconds in body should be greater than or equal to 0") !=
          std::string::npos);
    CHECK(message.find("metrics[0].name: Too long: may not be more than 64 bytes") !=
          std::string::npos);
    CHECK(message.find("metrics[0].value in body should be at least 1 chars long") !=
          std::string::npos);
    CHECK(message.find("lastUpdatedTime is required when trainerStatus is present") !=
          std::string::npos);
    json many = json::array();
    for (int i = 0; i < 257; ++i) {
        many.push_back({{"name", "m" + std::to_string(i)}, {"value", "1"}});
    }
    const auto too_many = answer_post(
        post(status_body({{"metrics", many}, {"lastUpdatedTime", "2026-06-12T03:00:00Z"}}).dump()),
        k_target);
    CHECK(too_many.body["message"].get<std::string>().find(
              "status.trainerStatus.metrics: Too many: 257: must have at most 256 items") !=
          std::string::npos);
}

TEST_CASE("an HTTP request head is read for method, path, token and length",
          "[local][status-server]") {
    auto head = parse_request_head(
        "POST /apis/x/status?dryRun=All HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "authorization:  Bearer abc \r\nContent-Length: 12\r\n");
    REQUIRE(head);
    CHECK(head->method == "POST");
    CHECK(head->path == "/apis/x/status");
    CHECK(head->authorization == "Bearer abc");
    CHECK(head->content_length == 12u);
    CHECK_FALSE(head->chunked);
    CHECK(parse_request_head("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n")->chunked);
    CHECK_FALSE(parse_request_head("garbage"));
    CHECK_FALSE(parse_request_head("POST / HTTP/1.1\r\nContent-Length: -1\r\n"));
    CHECK_FALSE(parse_request_head("POST / HTTP/1.1\r\nno colon\r\n"));
    const std::string text =
        http_answer_text({404, failure_status(404, "NotFound", "Not found"), std::nullopt});
    CHECK(text.rfind("HTTP/1.1 404 Not Found\r\n", 0) == 0);
    CHECK(text.find("\r\n\r\n{\"code\":404,") != std::string::npos);
}
