// `kftrain mcp` tools on a job that ships code or names no namespace, under --allow-namespace:
// what they return holds no file's content, and each verb gets the namespace once.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>

#include "support/files.h"
#include "support/mcp_client.h"

namespace kftrain::test {
namespace {

using json = nlohmann::json;

constexpr const char* k_content = "CODE-CONTENT-7f3a";

// A job file whose code folder proj/ holds a file with k_content, tunable through its lr.
void code_job(const McpFixture& f) {
    std::filesystem::create_directories(f.dir + "/proj");
    write_file(f.dir + "/proj/train.py", std::string("print('") + k_content + "')\n");
    write_file(f.dir + "/job.yaml",
               "name: mcp-tune-code\nbackend: local\n"
               "command: [python3, train.py, \"--lr=${trialParameters.lr}\"]\n"
               "code:\n  path: proj\n");
}

}  // namespace

TEST_CASE("mcp server: no tool returns the content of a job's code files, tune_job included",
          "[mcp][cli][code]") {
    McpFixture f;
    code_job(f);
    const json tune = {{"job_file", "job.yaml"}, {"params", {"lr=0.1:1"}}};
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--local"},
          std::vector<std::string>{"--local", "--allow-namespace", "team-a"}}) {
        auto server = f.serve(args);
        int id = 0;
        const json experiment = structured(server->call(++id, "tune_job", tune))["experiment"];
        CHECK(experiment["kind"] == "Experiment");
        CHECK(experiment["metadata"]["name"] == "mcp-tune-code");
        if (args.size() > 1) {  // a job file that names no namespace: the first allowed one
            CHECK(experiment["metadata"]["namespace"] == "team-a");
        }
        for (const std::string tool : {"render_job", "submit_job", "tune_job"}) {
            const json arguments = tool == "tune_job" ? tune
                                                      : json{{"job_file", "job.yaml"},
                                                             {"set", {"trialParameters.lr=0.5"}}};
            const json reply = server->call(++id, tool, arguments);
            INFO(tool << " " << args.size() << " -> " << reply.dump());
            CHECK_FALSE(is_error(reply));
            CHECK(reply.dump().find(k_content) == std::string::npos);
        }
    }
}

TEST_CASE("mcp server: submit_job under --allow-namespace submits a job file naming none",
          "[mcp][cli]") {
    McpFixture f;
    f.job("plain.yaml", "mcp-plain-submit", "true");
    auto server = f.serve({"--local", "--allow-namespace", "team-a"});
    const json submitted = structured(server->call(
        1, "submit_job", {{"job_file", "plain.yaml"}, {"dry_run", false}, {"confirm", true}}));
    CHECK(submitted["submitted"] == true);
    CHECK(submitted["namespace"] == "team-a");
    CHECK(f.kftrain({"list", "-n", "team-a", "-o", "json"}).out.find("mcp-plain-submit") !=
          std::string::npos);
    // A job file that names the allowed namespace itself is submitted there too.
    write_file(f.dir + "/named.yaml",
               "name: mcp-named-submit\nnamespace: team-a\nbackend: local\ncommand: [\"true\"]\n");
    const json named = structured(server->call(
        2, "submit_job", {{"job_file", "named.yaml"}, {"dry_run", false}, {"confirm", true}}));
    CHECK(named["submitted"] == true);
    CHECK(named["namespace"] == "team-a");
}

TEST_CASE(
    "mcp server: top_job shows a running local job's replicas and keeps to the allowed "
    "namespaces",
    "[mcp][cli][top]") {
    McpFixture f;
    write_file(f.dir + "/hold.yaml",
               "name: mcp-top\nnamespace: team-a\nbackend: local\nreplicas: 1\n"
               "command: [\"sh\", \"-c\", \"sleep 120\"]\n");
    REQUIRE(f.kftrain({"submit", "-f", f.dir + "/hold.yaml"}).code == 0);
    auto server = f.serve({"--local", "--allow-namespace", "team-a"});
    json usage;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (int id = 1; std::chrono::steady_clock::now() < deadline; ++id) {
        const json reply = server->call(id, "top_job", {{"name", "mcp-top"}});
        REQUIRE_FALSE(is_error(reply));
        usage = structured(reply);
        if (usage["replicas"].size() == 1 && usage["replicas"][0]["memory"]["used"].is_number()) {
            break;
        }
    }
    INFO(usage.dump());
    CHECK(usage["name"] == "mcp-top");
    REQUIRE(usage["replicas"].size() == 1);
    CHECK(usage["replicas"][0]["memory"]["used"].get<double>() > 0);
    const json elsewhere =
        server->call(1000, "top_job", {{"name", "mcp-top"}, {"namespace", "prod"}});
    CHECK(is_error(elsewhere));
    CHECK_THAT(error_text(elsewhere),
               Catch::Contains("namespace prod is not one this server may use"));
    CHECK(f.kftrain({"delete", "mcp-top", "-n", "team-a"}).code == 0);
}

}  // namespace kftrain::test
