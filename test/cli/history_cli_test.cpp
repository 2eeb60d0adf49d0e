#include <catch2/catch.hpp>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "history/store.h"
#include "support/cli_runner.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/text.h"
#include "util/text.h"
#include "util/time_text.h"

using kftrain::test::CliRun;
using kftrain::test::contains;
using kftrain::test::FakeCluster;

namespace {

using Argv = std::vector<std::string>;

// A state directory of its own (XDG_STATE_HOME) for this test and the kftrain it runs.
class HistoryHome {
  public:
    HistoryHome() : m_dir(kftrain::test::make_temp_dir()) {
        const char* old = std::getenv("XDG_STATE_HOME");
        m_old = old ? std::optional<std::string>(old) : std::nullopt;
        ::setenv("XDG_STATE_HOME", m_dir.c_str(), 1);
    }
    ~HistoryHome() {
        if (m_old) {
            ::setenv("XDG_STATE_HOME", m_old->c_str(), 1);
        } else {
            ::unsetenv("XDG_STATE_HOME");
        }
    }
    HistoryHome(const HistoryHome&) = delete;
    HistoryHome& operator=(const HistoryHome&) = delete;

    // Keep the record of a job of the fake's context that finished ago_s before now.
    void keep(const std::string& ns, const std::string& name, const std::string& phase,
              double ago_s, std::optional<double> cost, const std::string& context = "fake") {
        kftrain::history::Record record;
        auto& s = record.summary;
        s.context = context;
        s.namespace_ = ns;
        s.name = name;
        s.uid = name == "gpt" ? kftrain::test::k_mnist_ddp_uid : name + "-uid";
        s.kind = "PyTorchJob";
        s.phase = phase;
        const std::time_t finished = std::time(nullptr) - static_cast<std::time_t>(ago_s);
        s.finished = kftrain::util::format_timestamp(finished);
        s.started = kftrain::util::format_timestamp(finished - 3600);
        s.recorded = s.finished;
        s.run_s = 3600;
        s.replicas = 2;
        s.cost.amount = cost;
        s.cost.currency = "USD";
        s.cost.unpriced = cost ? "" : "GPU type unknown";
        s.why = phase == "Failed" ? "master-0 OOMKilled at its 4Gi limit" : "";
        auto written = kftrain::history::write_record(record);
        if (!written) {
            FAIL(written.error());
        }
    }

    // Run the built kftrain against the fake cluster, with this state directory.
    CliRun run(const FakeCluster& cluster, const Argv& args) const {
        auto env = cluster.env();
        env["XDG_STATE_HOME"] = m_dir;
        return kftrain::test::run_kftrain(args, env);
    }

  private:
    std::string m_dir;
    std::optional<std::string> m_old;
};

// The three records most cases start from: bert failed 2h ago and gpt succeeded 3 days ago in
// team-a, resnet succeeded 10 days ago in team-b, and one of another context.
void keep_three(HistoryHome& home) {
    home.keep("team-a", "bert", "Failed", 2 * 3600, 12.5);
    home.keep("team-a", "gpt", "Succeeded", 3 * 86400, 7.5);
    home.keep("team-b", "resnet", "Succeeded", 10 * 86400, 21.0);
    home.keep("team-a", "elsewhere", "Succeeded", 3600, 99.0, "prod");
}

// Return the first cell of each line after the header.
std::vector<std::string> first_cells(const std::string& table) {
    std::vector<std::string> cells;
    auto lines = kftrain::util::split_lines(table);
    for (size_t i = 1; i < lines.size(); ++i) {
        cells.push_back(lines[i].substr(0, lines[i].find(' ')));
    }
    return cells;
}

// A scenario whose cluster lists these jobs (files of test/data/kube, or objects written
// here), and answers a get of its first job by name.
FakeCluster listing_cluster(const std::vector<nlohmann::json>& jobs) {
    const std::string dir = kftrain::test::make_temp_dir();
    nlohmann::json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", jobs}};
    kftrain::test::write_file(dir + "/list.json", list.dump());
    kftrain::test::write_file(dir + "/first.json", jobs.front().dump());
    nlohmann::json scenario = {{"list", "list.json"},
                               {"states", {{{"job", "first.json"}, {"pods", "pods-empty.json"}}}}};
    kftrain::test::write_file(dir + "/scenario.json", scenario.dump());
    return FakeCluster(dir + "/scenario.json");
}

nlohmann::json kube_job(const std::string& file) {
    std::ifstream in(std::string(kftrain::test::test_data_dir()) + "/kube/" + file);
    return nlohmann::json::parse(in);
}

// mnist-ddp succeeded in 2024, renamed, run for 10 minutes and finished ago_s before now.
nlohmann::json finished_job(const std::string& name, double ago_s) {
    nlohmann::json job = kube_job("job-v19-succeeded.json");
    job["metadata"]["name"] = name;
    job["metadata"]["uid"] = name + "-live-uid";
    const std::time_t at = std::time(nullptr) - static_cast<std::time_t>(ago_s);
    job["status"]["startTime"] = kftrain::util::format_timestamp(at - 600);
    job["status"]["completionTime"] = kftrain::util::format_timestamp(at);
    job["status"]["conditions"].back()["lastTransitionTime"] = kftrain::util::format_timestamp(at);
    return job;
}

int deletes(const FakeCluster& cluster) {
    int count = 0;
    for (const auto& call : cluster.calls()) {
        count += !call.empty() && call[0] == "delete" ? 1 : 0;
    }
    return count;
}

}  // namespace

TEST_CASE("history lists the current context's records newest first", "[history][cli]") {
    HistoryHome home;
    keep_three(home);
    FakeCluster cluster("list-none");
    auto all = home.run(cluster, {"history", "-A"});
    INFO(all.err);
    REQUIRE(all.code == 0);
    CHECK(kftrain::util::split_lines(all.out).front() ==
          "NAME    NAMESPACE  KIND        STATE      FINISHED  RUN   COST    WHY");
    CHECK(first_cells(all.out) == std::vector<std::string>{"bert", "gpt", "resnet"});
    CHECK(contains(all.out, "1h0m  $12.50  master-0 OOMKilled at its 4Gi limit"));

    SECTION("--state and --since keep what they name") {
        auto failed = home.run(cluster, {"history", "-A", "--state", "Failed"});
        CHECK(first_cells(failed.out) == std::vector<std::string>{"bert"});
        auto week = home.run(cluster, {"history", "-A", "--since", "7d"});
        CHECK(first_cells(week.out) == std::vector<std::string>{"bert", "gpt"});
        auto team_b = home.run(cluster, {"history", "-n", "team-b"});
        CHECK(first_cells(team_b.out) == std::vector<std::string>{"resnet"});
    }
    SECTION("--all-contexts adds the other context's record and a CONTEXT column") {
        auto every = home.run(cluster, {"history", "--all-contexts"});
        CHECK(first_cells(every.out) == std::vector<std::string>{"prod", "fake", "fake", "fake"});
        CHECK(kftrain::util::split_lines(every.out).front().rfind("CONTEXT  NAME", 0) == 0);
    }
    SECTION("-o json holds each summary and where it lies") {
        auto json = home.run(cluster, {"history", "-A", "-o", "json"});
        REQUIRE(json.code == 0);
        auto doc = nlohmann::json::parse(json.out);
        REQUIRE(doc["items"].size() == 3);
        CHECK(doc["items"][0]["name"] == "bert");
        CHECK(contains(doc["items"][0]["path"].get<std::string>(), "/kftrain/history/fake/"));
    }
}

TEST_CASE("history with no records says how records are made", "[history][cli]") {
    HistoryHome home;
    auto empty = home.run(FakeCluster("list-none"), {"history", "-A"});
    CHECK(empty.code == 0);
    CHECK(empty.out.empty());
    CHECK(empty.err ==
          "No records in history (kftrain records a cluster job when it first sees it "
          "finished).\n");
}

TEST_CASE("history, prune and cost refuse bad flags naming the flag and value", "[history][cli]") {
    HistoryHome home;
    FakeCluster cluster("list-none");
    struct Case {
        Argv args;
        std::string err;
    };
    const std::vector<Case> cases = {
        {{"history", "--state", "Running"},
         "--state: must be Succeeded or Failed, or both as Succeeded,Failed (got Running)"},
        {{"history", "--since", "7"},
         "--since: not a duration such as 90s, 1h30m or 500ms "
         "(got 7; add a unit, as in 7s)"},
        {{"prune"},
         "--older-than: required: how long ago a job finished for prune to delete it "
         "(a duration such as 7d, 12h or 90m)"},
        {{"prune", "--older-than", "soon"},
         "--older-than: not a duration such as 90s, 1h30m or 500ms (got soon)"},
        {{"cost", "--by", "owner"},
         "--by: must be job, namespace, queue, user or label:KEY (got owner)"},
        {{"cost", "--budget", "lots"},
         "--budget: must be an amount such as 50 or 12.50 (got lots)"},
        {{"cost", "-o", "xml"}, "-o/--output: must be table, json, yaml or csv (got xml)"},
    };
    for (const auto& c : cases) {
        auto run = home.run(cluster, c.args);
        INFO(c.args.front() << " " << c.err);
        CHECK(run.code == 2);
        CHECK(run.err == "kftrain: error: " + c.err + "\n");
    }
    CHECK(deletes(cluster) == 0);
}

TEST_CASE("cost adds up the records by namespace, as CSV", "[history][cli]") {
    HistoryHome home;
    keep_three(home);
    auto csv = home.run(FakeCluster("list-none"),
                        {"cost", "-A", "--since", "3650d", "--by", "namespace", "-o", "csv"});
    INFO(csv.err);
    REQUIRE(csv.code == 0);
    CHECK(csv.out ==
          "namespace,jobs,run_s,unknown_run_time,replica_hours,cost,not_priced,estimated_cost,"
          "currency\n"
          "team-b,1,3600,0,2,21,0,,USD\n"
          "team-a,2,7200,0,4,20,0,,USD\n"
          "TOTAL,3,10800,0,6,41,0,,USD\n");
}

TEST_CASE("cost counts a live job once: from its record where its uid has one", "[history][cli]") {
    HistoryHome home;
    keep_three(home);
    // mnist-ddp's uid is gpt's record's; fresh has none in history.
    FakeCluster cluster =
        listing_cluster({kube_job("job-v19-succeeded.json"), finished_job("fresh", 3600)});
    auto json = home.run(cluster, {"cost", "-A", "--since", "3650d", "-o", "json"});
    INFO(json.err);
    REQUIRE(json.code == 0);
    auto doc = nlohmann::json::parse(json.out);
    CHECK(doc["total"]["jobs"] == 4);
    std::vector<std::string> keys;
    for (const auto& row : doc["rows"]) {
        keys.push_back(row["key"].get<std::string>());
    }
    CHECK(keys == std::vector<std::string>{"team-b/resnet", "team-a/bert", "team-a/gpt",
                                           "ml-training/fresh"});
}

TEST_CASE("cost --budget exits 1 when the total is over it, 0 within it", "[history][cli]") {
    HistoryHome home;
    keep_three(home);
    FakeCluster cluster("list-none");
    auto over = home.run(cluster, {"cost", "-A", "--since", "30d", "--budget", "$30"});
    CHECK(over.code == 1);
    CHECK(contains(over.err, "over budget: $41.00 > $30.00\n"));
    CHECK(contains(over.out, "TOTAL"));
    auto within = home.run(cluster, {"cost", "-A", "--since", "30d", "--budget", "50"});
    CHECK(within.code == 0);
    CHECK_FALSE(contains(within.err, "over budget"));
    auto week = home.run(cluster, {"cost", "-A", "--since", "7d", "--budget", "30"});
    CHECK(week.code == 0);  // resnet finished 10 days ago: $21 of the 41 is older
}

TEST_CASE("prune --dry-run names the old finished job and deletes nothing", "[history][cli]") {
    HistoryHome home;
    FakeCluster cluster =
        listing_cluster({kube_job("job-v19-succeeded.json"), finished_job("fresh", 3600),
                         kube_job("job-v19-running.json")});
    auto dry = home.run(cluster, {"prune", "--older-than", "7d", "--dry-run"});
    INFO(dry.err);
    CHECK(dry.code == 0);
    CHECK(dry.out == "pytorchjob/mnist-ddp would be deleted\n1 job would be deleted\n");
    CHECK(deletes(cluster) == 0);
}

TEST_CASE("prune deletes only the finished job older than --older-than", "[history][cli]") {
    HistoryHome home;
    FakeCluster cluster =
        listing_cluster({kube_job("job-v19-succeeded.json"), finished_job("fresh", 3600),
                         kube_job("job-v19-running.json")});
    auto pruned = home.run(cluster, {"prune", "--older-than", "7d"});
    INFO(pruned.err);
    CHECK(pruned.code == 0);
    CHECK(pruned.out == "pytorchjob/mnist-ddp deleted (record kept)\n1 job deleted\n");
    std::vector<Argv> deleted;
    for (const auto& call : cluster.calls()) {
        if (!call.empty() && call[0] == "delete" && call.size() > 1 &&
            call[1] == "pytorchjobs.kubeflow.org") {
            deleted.push_back(call);
        }
    }
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0].back() == "mnist-ddp");
    SECTION("--state Failed leaves a succeeded job") {
        auto none = home.run(cluster, {"prune", "--older-than", "7d", "--state", "Failed"});
        CHECK(none.out == "No finished jobs older than 7d.\n");
    }
}
