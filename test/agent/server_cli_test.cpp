// `kftrain mcp` through the binary, as a client drives it: NDJSON in, NDJSON out.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "support/cli_runner.h"
#include "support/files.h"
#include "support/mcp_client.h"
#include "util/text.h"

namespace kftrain::test {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

// Poll until no process runs with every one of words on its command line.
bool gone_within(const std::vector<std::string>& words, std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (process_running(words)) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(50ms);  // polling, with the deadline above
    }
    return true;
}

}  // namespace

TEST_CASE("mcp server: the handshake agrees a version and notifications get no answer",
          "[mcp][cli]") {
    McpFixture f;
    McpServer server({"--local"}, f.env, f.dir);
    server.request(1, "initialize", {{"protocolVersion", "1999-01-01"}});
    json reply = server.response(1, 30s)["result"];
    CHECK(reply["protocolVersion"] == "2025-11-25");
    CHECK(reply["serverInfo"]["name"] == "kftrain");
    CHECK_THAT(reply["instructions"].get<std::string>(),
               Catch::Contains("Jobs run on this machine"));
    server.request(2, "initialize", {{"protocolVersion", "2025-06-18"}});
    CHECK(server.response(2, 30s)["result"]["protocolVersion"] == "2025-06-18");
    server.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    server.send({{"jsonrpc", "2.0"},
                 {"method", "notifications/cancelled"},
                 {"params", {{"requestId", 77}}}});
    server.request(3, "ping");
    auto first = server.next(30s);  // the notifications above wrote nothing before this
    REQUIRE(first);
    CHECK(*first == json{{"jsonrpc", "2.0"}, {"id", 3}, {"result", json::object()}});
    server.close_input();
    CHECK(server.wait_exit(30s) == 0);
}

TEST_CASE("mcp server: a session piped in whole gets its results before the server exits",
          "[mcp][cli]") {
    // docs/agents.md's session by hand: printf '%s\n' REQUESTS | kftrain mcp. The input ends
    // while the call runs; its result still comes.
    McpFixture f;
    f.job("job.yaml", "mcp-piped", "true");
    const std::string input =
        json{{"jsonrpc", "2.0"},
             {"id", 1},
             {"method", "initialize"},
             {"params",
              {{"protocolVersion", "2025-11-25"},
               {"capabilities", json::object()},
               {"clientInfo", {{"name", "sh"}, {"version", "1"}}}}}}
            .dump() +
        "\n" +
        json{{"jsonrpc", "2.0"},
             {"id", 2},
             {"method", "tools/call"},
             {"params", {{"name", "render_job"}, {"arguments", {{"job_file", "job.yaml"}}}}}}
            .dump() +
        "\n";
    const auto run = run_kftrain({"mcp", "--local", "--root", f.dir}, f.env, input);
    INFO(run.err);
    CHECK(run.code == 0);
    bool rendered = false;
    for (const auto& line : util::split_lines(run.out)) {
        const json message = json::parse(line);
        if (message.value("id", json()) == 2) {
            rendered = message["result"]["structuredContent"]["name"] == "mcp-piped";
        }
    }
    CHECK(rendered);
}

TEST_CASE("mcp server: logs past the output limit come back cut and say so", "[mcp][cli]") {
    McpFixture f;
    // One 80 MB line: 80 MB of log however it is split, more than the server takes (64 MiB).
    f.job("huge.yaml", "mcp-huge-line",
          "python3 -c \"import sys; sys.stdout.write('x' * (80 << 20) + '\\\\n')\"");
    REQUIRE(f.kftrain({"submit", "-f", f.dir + "/huge.yaml"}).code == 0);
    auto server = f.serve();
    json waited = server->call(1, "wait_for_job", {{"name", "mcp-huge-line"}});
    REQUIRE_FALSE(is_error(waited));
    json logs = server->call(2, "get_job_logs", {{"name", "mcp-huge-line"}, {"tail_lines", 2000}});
    INFO(logs.dump().substr(0, 400));
    const json got = structured(logs);
    CHECK(got["truncated"] == true);
    CHECK_FALSE(got["text"].get<std::string>().empty());
}

TEST_CASE("mcp server: each protocol fault gets its error code and the server carries on",
          "[mcp][cli]") {
    McpFixture f;
    auto server = f.serve();
    auto code_of = [&](const std::string& line) {
        server->send_raw(line);
        auto reply = server->next(30s);
        REQUIRE(reply);
        return (*reply)["error"]["code"].get<int>();
    };
    CHECK(code_of("{not json") == -32700);
    CHECK(code_of(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])") == -32600);
    CHECK(code_of(R"({"jsonrpc":"2.0","id":1,"method":"sampling/createMessage"})") == -32601);
    CHECK(code_of(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm_rf"}})") ==
          -32602);
    CHECK(code_of(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]})") == -32602);
    CHECK(code_of(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":)" +
                  std::string(200000, '[') + "}") == -32700);
    // A 10 MB line is refused without being kept, and the next message is answered.
    CHECK(code_of(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":")" +
                  std::string(10 << 20, 'a') + "\"}}") == -32700);
    server->request("after", "ping");
    CHECK(server->response("after", 30s)["result"] == json::object());
}

TEST_CASE("mcp server: a tool given bad arguments answers isError with kftrain's message",
          "[mcp][cli]") {
    McpFixture f;
    f.job("job.yaml", "mcp-args", "true");
    ::symlink("/etc/passwd", (f.dir + "/escape.yaml").c_str());
    ::symlink(f.dir.c_str(), (f.dir + "/linked").c_str());  // even one that stays inside
    auto server = f.serve();
    struct Case {
        const char* tool;
        json arguments;
        const char* message;
    };
    const Case cases[] = {
        {"render_job", json::object(), "give exactly one of job_file"},
        {"render_job",
         {{"job_file", "../job.yaml"}},
         "job_file ../job.yaml: \"..\" is not allowed"},
        {"render_job", {{"job_file", "escape.yaml"}}, "no regular file of that name inside"},
        {"render_job", {{"job_file", "linked/job.yaml"}}, "symlinks are not followed"},
        {"render_job", {{"job_file", "/etc/passwd"}}, "outside the server's root directory"},
        {"delete_job",
         {{"name", std::string("mcp-args\0other", 14)}, {"confirm", true}},
         "without NUL"},
        {"render_job", {{"job_file", "job.yaml"}, {"set", {"replicas=zero"}}}, "replicas"},
        {"render_job", {{"job_yaml", "name: Bad_Name\n"}}, "Bad_Name"},
        {"get_job_logs",
         {{"name", "x"}, {"tail_lines", 5000}},
         "argument tail_lines must be an integer from 1 to 2000 (got 5000)"},
        {"get_job_status", {{"name", "x"}, {"colour", 1}}, "unknown argument \"colour\""},
        {"get_job_status", {{"name", "nosuch"}}, "job nosuch not found"},
        {"wait_for_job", {{"name", "x"}, {"for", "done"}}, "argument for must be"},
    };
    int id = 0;
    for (const Case& c : cases) {
        json reply = server->call(++id, c.tool, c.arguments);
        INFO(c.tool << " " << c.arguments.dump() << " -> " << reply.dump());
        CHECK(is_error(reply));
        CHECK_THAT(error_text(reply), Catch::Contains(c.message));
    }
}

TEST_CASE("mcp server: --read-only offers and runs no tool that changes anything", "[mcp][cli]") {
    McpFixture f;
    f.job("job.yaml", "mcp-ro", "true");
    auto server = f.serve({"--local", "--read-only"});
    server->request(1, "tools/list");
    json tools = server->response(1, 30s)["result"]["tools"];
    for (const json& tool : tools) {
        CHECK(tool["annotations"]["readOnlyHint"] == true);
    }
    server->request(
        2, "tools/call",
        {{"name", "submit_job"},
         {"arguments", {{"job_file", "job.yaml"}, {"confirm", true}, {"dry_run", false}}}});
    CHECK(server->response(2, 30s)["error"]["code"] == -32602);
    json measure = server->call(3, "estimate_job", {{"job_file", "job.yaml"}, {"measure", true}});
    CHECK(is_error(measure));
    CHECK_THAT(error_text(measure), Catch::Contains("read-only"));
    CHECK(f.kftrain({"list", "-o", "json"}).out.find("mcp-ro") == std::string::npos);
}

TEST_CASE("mcp server: measure runs nothing without confirm, and never on a cluster's server",
          "[mcp][cli]") {
    McpFixture f;
    const std::string marker = f.dir + "/ran";
    f.job("job.yaml", "mcp-measure", "touch " + marker);
    auto local = f.serve({"--local"});
    json unconfirmed =
        local->call(1, "estimate_job", {{"job_file", "job.yaml"}, {"measure", true}});
    CHECK(is_error(unconfirmed));
    CHECK_THAT(error_text(unconfirmed), Catch::Contains("call again with confirm: true"));
    auto cluster = f.serve({});
    json confirmed = cluster->call(
        1, "estimate_job", {{"job_file", "job.yaml"}, {"measure", true}, {"confirm", true}});
    CHECK(is_error(confirmed));
    CHECK_THAT(error_text(confirmed), Catch::Contains("on_cluster: true to measure there") &&
                                          Catch::Contains("start it with --local"));
    // On the cluster: only with measure, never from a server that runs jobs here, and within
    // the server's budget (the measurement's own cost, priced before anything is submitted).
    json alone = cluster->call(2, "estimate_job",
                               {{"job_file", "job.yaml"}, {"on_cluster", true}, {"confirm", true}});
    CHECK_THAT(error_text(alone), Catch::Contains("give measure: true with it"));
    json here = local->call(
        2, "estimate_job",
        {{"job_file", "job.yaml"}, {"measure", true}, {"on_cluster", true}, {"confirm", true}});
    CHECK_THAT(error_text(here), Catch::Contains("runs jobs on this machine (--local)"));
    f.job("cluster.yaml", "mcp-measure", "touch " + marker);
    write_file(f.dir + "/cluster.yaml",
               "name: mcp-measure\nreplicas: 2\nresources:\n  cpu: \"4\"\n  memory: 16Gi\n"
               "command: [\"sh\", \"-c\", \"touch " +
                   marker + "\"]\n");
    auto budgeted = f.serve({"--max-cost", "0.001"});
    json over = budgeted->call(
        3, "estimate_job",
        {{"job_file", "cluster.yaml"}, {"measure", true}, {"on_cluster", true}, {"confirm", true}});
    CHECK(is_error(over));
    CHECK_THAT(error_text(over), Catch::Contains("--max-cost: the measurement may cost up to"));
    CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("mcp server: job_file reads only job files and quotes nothing of another file",
          "[mcp][cli][untrusted]") {
    McpFixture f;
    write_file(f.dir + "/.netrc", "machine example.com login me password hunter2-netrc\n");
    write_file(f.dir + "/id_rsa",
               "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE-keymaterial\n"
               "-----END OPENSSH PRIVATE KEY-----\n");
    write_file(f.dir + "/.pgpass", "localhost:5432:db:me:hunter2-pgpass\n");
    auto server = f.serve({"--local", "--read-only"});
    int id = 0;
    for (const std::string file : {".netrc", "id_rsa", ".pgpass"}) {
        for (const std::string tool : {"render_job", "estimate_job"}) {
            json reply = server->call(++id, tool, {{"job_file", file}});
            INFO(tool << " " << file << " -> " << reply.dump());
            CHECK(is_error(reply));
            CHECK_THAT(error_text(reply), Catch::Contains("not a job file"));
            CHECK(reply.dump().find("hunter2") == std::string::npos);
            CHECK(reply.dump().find("keymaterial") == std::string::npos);
        }
    }
}

TEST_CASE("mcp server: --allow-namespace refuses every other namespace", "[mcp][cli]") {
    McpFixture f;
    write_file(f.dir + "/prod.yaml",
               "name: mcp-ns\nnamespace: prod\nbackend: local\n"
               "command: [\"true\"]\n");
    auto server = f.serve({"--local", "--allow-namespace", "team-a"});
    json status = server->call(1, "get_job_status", {{"name", "x"}, {"namespace", "prod"}});
    CHECK(is_error(status));
    CHECK_THAT(error_text(status), Catch::Contains("namespace prod is not one this server may use "
                                                   "(--allow-namespace team-a)"));
    json submit = server->call(2, "submit_job",
                               {{"job_file", "prod.yaml"}, {"dry_run", false}, {"confirm", true}});
    CHECK(is_error(submit));
    CHECK_THAT(error_text(submit), Catch::Contains("namespace prod"));
    CHECK(f.kftrain({"list", "-A", "-o", "json"}).out.find("mcp-ns") == std::string::npos);

    // A job file that names no namespace goes to the first allowed one, as the docs say.
    f.job("plain.yaml", "mcp-plain", "true");
    json plain = structured(server->call(3, "render_job", {{"job_file", "plain.yaml"}}));
    CHECK(plain["manifest"]["metadata"]["namespace"] == "team-a");
}

TEST_CASE("mcp server: a submit over the budget, or that cannot be estimated, is refused",
          "[mcp][cli]") {
    McpFixture f;
    write_file(f.dir + "/trainer.yaml",
               "name: mcp-costly\nbackend: local\nreplicas: 4\n"
               "trainer: {dataset: synthetic, model: mlp, epochs: 50, samples: 1000000}\n");
    f.job("own.yaml", "mcp-own", "true");
    auto server = f.serve({"--local", "--max-cost", "0.01"});
    json dry = structured(server->call(1, "submit_job", {{"job_file", "trainer.yaml"}}));
    CHECK(dry["submitted"] == false);
    CHECK(dry["budget"] == 0.01);
    CHECK(dry["estimate"]["replicas"] == 4);
    CHECK_THAT(dry["message"].get<std::string>(),
               Catch::Contains("A real submit would be refused") &&
                   Catch::Contains("over the budget of 0.01"));
    json costly = server->call(
        2, "submit_job", {{"job_file", "trainer.yaml"}, {"dry_run", false}, {"confirm", true}});
    CHECK(is_error(costly));
    CHECK_THAT(error_text(costly), Catch::Contains("refused, nothing submitted") &&
                                       Catch::Contains("over the budget of 0.01"));
    json own = server->call(3, "submit_job",
                            {{"job_file", "own.yaml"}, {"dry_run", false}, {"confirm", true}});
    CHECK(is_error(own));
    CHECK_THAT(error_text(own), Catch::Contains("cannot be estimated"));
    std::string jobs = f.kftrain({"list", "-o", "json"}).out;
    CHECK(jobs.find("mcp-costly") == std::string::npos);
    CHECK(jobs.find("mcp-own") == std::string::npos);
}

TEST_CASE("mcp server: a job submitted, waited for with progress and read back", "[mcp][cli]") {
    McpFixture f;
    f.job("job.yaml", "mcp-run", "printf 'rank %s \\377\\376 done\\n' \"$RANK\"", 2);
    auto server = f.serve();
    json unconfirmed =
        server->call(1, "submit_job", {{"job_file", "job.yaml"}, {"dry_run", false}});
    CHECK(is_error(unconfirmed));
    json submitted = structured(server->call(
        2, "submit_job", {{"job_file", "job.yaml"}, {"dry_run", false}, {"confirm", true}}));
    CHECK(submitted["submitted"] == true);
    server->request(3, "tools/call",
                    {{"name", "wait_for_job"},
                     {"arguments", {{"name", "mcp-run"}, {"timeout_seconds", 120}}},
                     {"_meta", {{"progressToken", "tok"}}}});
    json waited = structured(server->response(3, 150s));
    CHECK(waited["outcome"] == "met");
    CHECK(waited["status"]["state"] == "Succeeded");
    REQUIRE_FALSE(server->notifications().empty());
    const json& note = server->notifications().front();
    CHECK(note["method"] == "notifications/progress");
    CHECK(note["params"]["progressToken"] == "tok");
    // A program's invalid UTF-8 comes back replaced, in valid JSON.
    json logs = structured(server->call(4, "get_job_logs", {{"name", "mcp-run"}}));
    CHECK_THAT(logs["text"].get<std::string>(),
               Catch::Contains("master-0 | rank 0 \xEF\xBF\xBD\xEF\xBF\xBD done"));
    CHECK(logs["truncated"] == false);
    json cut =
        structured(server->call(5, "get_job_logs", {{"name", "mcp-run"}, {"max_bytes", 10}}));
    CHECK(cut["truncated"] == true);
    CHECK(cut["text"].get<std::string>().size() <= 10);
    json deleted =
        structured(server->call(6, "delete_job", {{"name", "mcp-run"}, {"confirm", true}}));
    CHECK(deleted["deleted"] == true);
}

TEST_CASE("mcp server: a cancelled wait_for_job gets no response and leaves no process",
          "[mcp][cli]") {
    McpFixture f;
    f.job("job.yaml", "mcp-cancel", "exec sleep 300");
    REQUIRE(f.kftrain({"submit", "-f", f.dir + "/job.yaml"}).code == 0);
    auto server = f.serve();
    server->request("w", "tools/call",
                    {{"name", "wait_for_job"},
                     {"arguments", {{"name", "mcp-cancel"}}},
                     {"_meta", {{"progressToken", "p"}}}});
    auto progress = server->next(60s);  // the wait has started: the job is Running
    REQUIRE(progress);
    CHECK((*progress)["method"] == "notifications/progress");
    server->send({{"jsonrpc", "2.0"},
                  {"method", "notifications/cancelled"},
                  {"params", {{"requestId", "w"}, {"reason", "the user changed their mind"}}}});
    CHECK(gone_within({"wait", "mcp-cancel"}, 30s));
    server->request("p", "ping");
    CHECK(server->response("p", 30s)["result"] == json::object());  // and not "w"'s response
    // A client that closes its input mid-call: the server stops the call (after the grace
    // that lets short calls answer) and exits 0.
    server->request("w2", "tools/call",
                    {{"name", "wait_for_job"}, {"arguments", {{"name", "mcp-cancel"}}}});
    REQUIRE(gone_within({"status", "mcp-cancel"}, 30s));
    server->close_input();
    CHECK(server->wait_exit(30s) == 0);
    CHECK(gone_within({"wait", "mcp-cancel"}, 30s));
    CHECK(f.kftrain({"delete", "mcp-cancel"}).code == 0);
}

TEST_CASE("mcp server: a search whose values cost more than the budget is refused", "[mcp][cli]") {
    McpFixture f;
    write_file(f.dir + "/tune.yaml",
               "name: mcp-tune\nbackend: local\nreplicas: 1\n"
               "trainer: {dataset: synthetic, model: mlp, epochs: 1, samples: 1024}\n");
    auto server = f.serve({"--local", "--max-cost", "0.01"});
    json cheap = {{"job_file", "tune.yaml"}, {"params", {"lr=0.001:0.1:log"}}, {"max_trials", 2}};
    CHECK_THAT(structured(server->call(1, "tune_job", cheap))["message"].get<std::string>(),
               Catch::Contains("It is within the budget."));
    json dear = {{"job_file", "tune.yaml"},
                 {"params", {"epochs=90000,100000"}},
                 {"max_trials", 2},
                 {"dry_run", false},
                 {"confirm", true}};
    json refused = server->call(2, "tune_job", dear);
    CHECK(is_error(refused));
    CHECK_THAT(error_text(refused), Catch::Contains("refused, no search started") &&
                                        Catch::Contains("over the budget of 0.01"));
    CHECK(f.kftrain({"tune", "status", "mcp-tune"}).code == 3);  // nothing started
}

TEST_CASE("mcp server: a request reusing an id in flight is refused without that id",
          "[mcp][cli]") {
    McpFixture f;
    f.job("job.yaml", "mcp-dup", "exec sleep 300");
    REQUIRE(f.kftrain({"submit", "-f", f.dir + "/job.yaml"}).code == 0);
    auto server = f.serve();
    server->request(
        "dup", "tools/call",
        {{"name", "wait_for_job"}, {"arguments", {{"name", "mcp-dup"}, {"timeout_seconds", 2}}}});
    server->request("dup", "ping");
    auto refused = server->next(30s);
    REQUIRE(refused);
    CHECK((*refused)["id"].is_null());
    CHECK((*refused)["error"]["code"] == -32600);
    json waited = structured(server->response("dup", 60s));  // the one response "dup" gets
    CHECK(waited["outcome"] == "timed out");
    CHECK(f.kftrain({"delete", "mcp-dup"}).code == 0);
}

TEST_CASE("mcp server: a client that stops reading does not hold the server past a signal",
          "[mcp][cli]") {
    McpFixture f;
    McpServer server({"--local"}, f.env, f.dir);
    std::string pings;
    for (int i = 0; i < 3000; ++i) {  // far more answers than a pipe holds, none read
        pings += R"({"jsonrpc":"2.0","id":)" + std::to_string(i) +
                 R"(,"method":"ping"})"
                 "\n";
    }
    pings.pop_back();
    server.send_raw(pings);
    server.close_input();
    server.signal(SIGTERM);
    CHECK(server.wait_exit(30s) == 130);
}

}  // namespace kftrain::test

namespace kftrain::test {
namespace {

TEST_CASE("mcp server: a job's code folder is read only beneath --root, reached without links",
          "[mcp][cli][code]") {
    McpFixture f;
    std::filesystem::create_directories(f.dir + "/proj/lib");
    write_file(f.dir + "/proj/train.py", "print('hi')\n");
    write_file(f.dir + "/proj/lib/util.py", "X = 1\n");
    const std::string outside = make_temp_dir();
    write_file(outside + "/secret.py", "TOKEN = 'x'\n");
    ::symlink(outside.c_str(), (f.dir + "/away").c_str());
    auto with_code = [](const std::string& path) {
        return "name: mcp-code\ncommand: [python3, train.py]\ncode:\n  path: " + path + "\n";
    };
    write_file(f.dir + "/job.yaml", with_code("proj"));
    auto server = f.serve();

    // Inside the root, from a job file there or as text: the ConfigMap holds both files.
    int id = 0;
    for (const json& arguments :
         {json{{"job_file", "job.yaml"}}, json{{"job_yaml", with_code("proj")}},
          json{{"job_yaml", with_code(f.dir + "/proj")}}}) {
        const json rendered = structured(server->call(++id, "render_job", arguments));
        const std::string manifest = rendered["manifest"].dump();
        INFO(arguments.dump() << " -> " << manifest);
        CHECK(manifest.find("mcp-code-code-") != std::string::npos);
        CHECK(manifest.find("lib_2futil.py") != std::string::npos);
    }
    // Outside it, through a link, or by "..": refused, and nothing of it is read.
    for (const std::string& path : {outside, std::string("away"), std::string("proj/../..")}) {
        json reply = server->call(++id, "render_job", {{"job_yaml", with_code(path)}});
        INFO(path << " -> " << reply.dump());
        CHECK(is_error(reply));
        CHECK_THAT(error_text(reply), Catch::Contains("is not a folder inside the server's root"));
        CHECK(reply.dump().find("TOKEN") == std::string::npos);
    }
}

}  // namespace
}  // namespace kftrain::test

namespace kftrain::test {
namespace {

TEST_CASE("mcp server: check_cluster checks only namespaces the server may use",
          "[mcp][cli][doctor]") {
    McpFixture f;
    auto server = f.serve({"--local", "--allow-namespace", "team-a"});
    int id = 0;
    const std::string elsewhere = "name: probe\ncommand: [\"true\"]\nnamespace: team-b\n";
    for (const json& arguments :
         {json{{"job_yaml", elsewhere}}, json{{"namespace", "team-b"}},
          json{{"job_yaml", "name: probe\ncommand: [\"true\"]\n"}, {"namespace", "team-b"}}}) {
        json reply = server->call(++id, "check_cluster", arguments);
        INFO(arguments.dump() << " -> " << reply.dump());
        CHECK(is_error(reply));
        CHECK_THAT(error_text(reply),
                   Catch::Contains("namespace team-b is not one this server may use"));
    }
    // A job file that names no namespace is checked in the allowed one.
    const json report = structured(
        server->call(++id, "check_cluster", {{"job_yaml", "name: probe\ncommand: [\"true\"]\n"}}));
    CHECK(report["passed"] == true);
}

}  // namespace
}  // namespace kftrain::test
