#include "support/fake_cluster.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "support/files.h"
#include "support/paths.h"

namespace kftrain::test {
namespace {

std::vector<nlohmann::json> read_records(const std::string& path) {
    std::vector<nlohmann::json> records;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        records.push_back(nlohmann::json::parse(line));
    }
    return records;
}

}  // namespace

FakeCluster::FakeCluster(const std::string& scenario)
    : m_scenario(scenario.rfind('/', 0) == 0 ? scenario
                                             : std::string(kftrain::test::test_data_dir()) +
                                                   "/kube/scenarios/" + scenario + ".json"),
      m_record(make_temp_dir() + "/calls.jsonl"),
      m_state(make_temp_dir() + "/state") {}

FakeCluster FakeCluster::many_replicas(int workers, const std::vector<int>& failed,
                                       const std::vector<int>& restarting,
                                       const std::vector<int>& pending, bool ends) {
    const std::string dir = make_temp_dir();
    std::vector<std::string> argv = {std::string(source_dir()) + "/test/fakes/many_replicas.py",
                                     dir, std::to_string(workers)};
    for (const auto& [flag, indices] :
         {std::pair{"--failed", &failed}, std::pair{"--restarting", &restarting},
          std::pair{"--pending", &pending}}) {
        for (int index : *indices) {
            argv.insert(argv.end(), {flag, std::to_string(index)});
        }
    }
    if (ends) {
        argv.emplace_back("--ends");
    }
    auto made = run_program(argv);
    INFO(made.err);
    REQUIRE(made.code == 0);
    return FakeCluster(dir + "/scenario.json");
}

std::map<std::string, std::string> FakeCluster::env() const {
    return {{"KFTRAIN_KUBECTL", kftrain::test::fake_kubectl()},
            {"KFTRAIN_FAKE_SCENARIO", m_scenario},
            {"KFTRAIN_FAKE_RECORD", m_record},
            {"XDG_STATE_HOME", m_state}};
}

CliRun FakeCluster::run(const std::vector<std::string>& args) const {
    return run_kftrain(args, env());
}

std::vector<std::vector<std::string>> FakeCluster::calls() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& record : read_records(m_record)) {
        out.push_back(record["argv"].get<std::vector<std::string>>());
    }
    return out;
}

std::vector<std::vector<std::string>> FakeCluster::follow_calls(const std::string& pod) const {
    std::vector<std::vector<std::string>> out;
    for (auto& call : calls()) {
        const bool follows = std::find(call.begin(), call.end(), "-f") != call.end();
        if (call.size() > 1 && call[0] == "logs" && follows && (pod.empty() || call[1] == pod)) {
            out.push_back(std::move(call));
        }
    }
    return out;
}

std::vector<std::vector<std::string>> FakeCluster::logs_calls(const std::string& pod) const {
    std::vector<std::vector<std::string>> out;
    for (auto& call : calls()) {
        if (call.size() > 1 && call[0] == "logs" && call[1] == pod) {
            out.push_back(std::move(call));
        }
    }
    return out;
}

std::vector<std::string> FakeCluster::applied() const {
    std::vector<std::string> out;
    for (const auto& record : read_records(m_record)) {
        if (record["argv"][0] == "apply") {
            out.push_back(record["stdin"].get<std::string>());
        }
    }
    return out;
}

int FakeCluster::max_concurrent_logs() const {
    std::ifstream in(m_record + ".state");
    if (!in) {
        return 0;
    }
    auto state = nlohmann::json::parse(in);
    return state.value("max_logs", 0);
}

}  // namespace kftrain::test
