#include "mcp/protocol.h"

#include <catch2/catch.hpp>

#include "mcp/arguments.h"
#include "mcp/jsonrpc.h"
#include "mcp/masking.h"
#include "mcp/session.h"
#include "mcp/tool_catalog.h"

namespace kftrain::mcp {
namespace {

using json = nlohmann::json;

const ServerDescription k_server{"9.9.9", "instructions"};

Dispatch dispatch_line(const std::string& line, bool read_only = false) {
    return dispatch(parse_message(line), k_server, tool_catalog({read_only, false}));
}

int error_code(const Dispatch& d) {
    REQUIRE(d.reply);
    return (*d.reply)["error"]["code"].get<int>();
}

}  // namespace

TEST_CASE("mcp: a malformed line gets the JSON-RPC error code that names its fault", "[mcp]") {
    struct Case {
        const char* line;
        int code;
    };
    const Case cases[] = {
        {"not json", error::k_parse_error},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", error::k_parse_error},
        {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", error::k_invalid_request},
        {"42", error::k_invalid_request},
        {"{\"id\":1,\"method\":\"ping\"}", error::k_invalid_request},
        {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", error::k_invalid_request},
        {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", error::k_invalid_request},
        {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", error::k_invalid_request},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}", error::k_invalid_request},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":\"x\"}",
         error::k_invalid_request},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}", error::k_method_not_found},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}", error::k_invalid_params},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":[]}",
         error::k_invalid_params},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"rm\"}}",
         error::k_invalid_params},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
         "\"render_job\",\"arguments\":[1]}}",
         error::k_invalid_params},
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"x\"}}",
         error::k_invalid_params},
    };
    for (const Case& c : cases) {
        INFO(c.line);
        CHECK(error_code(dispatch_line(c.line)) == c.code);
    }
}

TEST_CASE("mcp: an error answers the request's id, or null when it cannot be read", "[mcp]") {
    CHECK((*dispatch_line("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\"}").reply)["id"] ==
          "a");
    CHECK((*dispatch_line("garbage").reply)["id"].is_null());
}

TEST_CASE("mcp: nesting deeper than the limit is a parse error before any JSON is built", "[mcp]") {
    std::string deep = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":";
    deep += std::string(100000, '[') + std::string(100000, ']') + "}}";
    Incoming message = parse_message(deep);
    CHECK(message.kind == Incoming::Kind::Invalid);
    CHECK(message.error_code == error::k_parse_error);
    CHECK(message.error == "message nests deeper than 64 levels");
    // Brackets inside strings do not count.
    CHECK(parse_message("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"" +
                        std::string(1000, '[') + "\"}}")
              .kind == Incoming::Kind::Notification);
}

TEST_CASE("mcp: initialize echoes a version the server speaks and offers its newest otherwise",
          "[mcp]") {
    CHECK(negotiate_version("2025-06-18") == "2025-06-18");
    CHECK(negotiate_version("2025-11-25") == "2025-11-25");
    CHECK(negotiate_version("1999-01-01") == "2025-11-25");
    CHECK(negotiate_version(json()) == "2025-11-25");
    Dispatch d = dispatch_line(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05"}})");
    json result = (*d.reply)["result"];
    CHECK(result["protocolVersion"] == "2024-11-05");
    CHECK(result["serverInfo"]["name"] == "kftrain");
    CHECK(result["serverInfo"]["version"] == "9.9.9");
    CHECK(result["capabilities"]["tools"].is_object());
    CHECK(result["instructions"] == "instructions");
}

TEST_CASE("mcp: notifications and client responses get no answer, ping gets an empty result",
          "[mcp]") {
    CHECK_FALSE(dispatch_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").reply);
    CHECK_FALSE(dispatch_line(R"({"jsonrpc":"2.0","method":"notifications/whatever"})").reply);
    CHECK_FALSE(dispatch_line(R"({"jsonrpc":"2.0","id":3,"result":{}})").reply);
    CHECK((*dispatch_line(R"({"jsonrpc":"2.0","id":3,"method":"ping"})").reply)["result"] ==
          json::object());
    Dispatch cancel = dispatch_line(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w"}})");
    CHECK_FALSE(cancel.reply);
    REQUIRE(cancel.cancel_id);
    CHECK(*cancel.cancel_id == "w");
}

TEST_CASE("mcp: tools/list lists every tool with schemas and truthful annotations", "[mcp]") {
    json tools = (*dispatch_line(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")
                       .reply)["result"]["tools"];
    REQUIRE(tools.size() == 13);
    for (const json& tool : tools) {
        INFO(tool["name"]);
        CHECK(tool["inputSchema"]["type"] == "object");
        CHECK(tool["outputSchema"]["type"] == "object");
        CHECK_FALSE(tool["title"].get<std::string>().empty());
        CHECK(tool["annotations"]["openWorldHint"].is_boolean());
    }
    CHECK(tools[7]["name"] == "delete_job");
    CHECK(tools[7]["annotations"]["destructiveHint"] == true);
    CHECK(tools[0]["annotations"]["readOnlyHint"] == true);
    json read_only = (*dispatch_line(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", true)
                           .reply)["result"]["tools"];
    std::vector<std::string> names;
    for (const json& tool : read_only) {
        names.push_back(tool["name"]);
    }
    CHECK(names == std::vector<std::string>{"render_job", "estimate_job", "list_jobs",
                                            "get_job_status", "get_job_logs", "wait_for_job",
                                            "get_tune_status", "diagnose_job", "top_job",
                                            "check_cluster"});
    CHECK(tool_catalog({false, true})[3].open_world == false);  // --local: nothing outside
}

TEST_CASE("mcp: tools/call becomes a call with its arguments and progress token", "[mcp]") {
    Dispatch d = dispatch_line(
        R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_jobs","arguments":{"namespace":"a"},"_meta":{"progressToken":"p1"}}})");
    CHECK_FALSE(d.reply);
    REQUIRE(d.call);
    CHECK(d.call->tool == "list_jobs");
    CHECK(d.call->arguments == json{{"namespace", "a"}});
    CHECK(d.call->progress_token == json("p1"));
    CHECK(error_code(dispatch_line(
              R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"submit_job"}})",
              true)) == error::k_invalid_params);  // --read-only: not callable either
}

TEST_CASE("mcp: a message is written as one line, invalid UTF-8 replaced", "[mcp]") {
    std::string line = to_line(notification_message("x", {{"text", "a\xff\nb"}}));
    CHECK(line ==
          "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"text\":\"a\xEF\xBF\xBD\\nb\"}}\n");
}

TEST_CASE("mcp: tool arguments are checked by name, with the value in the message", "[mcp]") {
    json args = {{"tail_lines", 5000}, {"name", "x"}};
    ArgumentReader reader(args);
    reader.text("name");
    reader.integer("tail_lines", 1, 2000);
    CHECK(reader.finish({"name", "tail_lines"}).error() ==
          "argument tail_lines must be an integer from 1 to 2000 (got 5000)");

    json extra = {{"name", "x"}, {"colour", "red"}};
    ArgumentReader unknown(extra);
    unknown.text("name");
    CHECK(unknown.finish({"name", "namespace"}).error() ==
          "unknown argument \"colour\" (this tool takes: name, namespace)");

    for (json job : {json::object(), json{{"job_file", "a"}, {"job_yaml", "b"}}}) {
        ArgumentReader both(job);
        read_job_arguments(both);
        CHECK(both.finish({"job_file", "job_yaml"}).error() ==
              "give exactly one of job_file (a path) and job_yaml (the YAML itself)");
    }
    json bad_set = {{"job_yaml", "name: a"}, {"set", {"replicas=2", 3}}};
    ArgumentReader sets(bad_set);
    read_job_arguments(sets);
    CHECK(sets.finish({"job_yaml", "set"}).error() ==
          "argument set must hold non-empty strings (got 3)");
}

TEST_CASE("mcp: what a tool returns has credentials masked", "[mcp]") {
    json manifest = {
        {"env",
         {{{"name", "HF_TOKEN"}, {"value", "hf_abc"}},
          {{"name", "TOKENIZERS_PARALLELISM"}, {"value", "false"}},
          {{"name", "MLFLOW_TRACKING_URI"}, {"value", "https://u:p@mlflow.example/x?token=t"}},
          {{"name", "AWS_SECRET_ACCESS_KEY"}, {"valueFrom", {{"secretKeyRef", {}}}}}}}};
    json masked = mask_credentials(manifest);
    CHECK(masked["env"][0]["value"] == "***");
    CHECK(masked["env"][1]["value"] == "false");
    CHECK(masked["env"][2]["value"] == "https://***@mlflow.example/x?token=***");
    CHECK(masked["env"][3] == manifest["env"][3]);
    CHECK(mask_credentials(json{{"name", "GH_PAT"}, {"value", "ghp_1"}})["value"] == "***");

    // A metric a program posted under a credential's name; a Secret's name and key stay.
    json status = {
        {"progress", {{"metrics", {{"api_token", "tok_1"}, {"grad_norm", "1.5"}}}}},
        {"ref",
         {{"secretName", "hf-creds"}, {"secretKeyRef", {{"name", "hf-creds"}, {"key", "token"}}}}}};
    json shown = mask_credentials(status);
    CHECK(shown["progress"]["metrics"]["api_token"] == "***");
    CHECK(shown["progress"]["metrics"]["grad_norm"] == "1.5");
    CHECK(shown["ref"] == status["ref"]);
}

}  // namespace kftrain::mcp
