#include "search/search_store.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "search/trial_json.h"
#include "support/files.h"

using namespace kftrain;
using namespace kftrain::search;

namespace {

SearchRecord sample_record() {
    SearchRecord r;
    auto& s = r.status;
    s.name = "mnist-tune";
    s.namespace_ = "ml";
    s.backend = "local";
    s.job_kind = "TrainJob";
    s.phase = "Succeeded";
    s.reason = "ExperimentMaxTrialsReached";
    s.message = "all 2 trials (max trials) ended; 1 succeeded";
    s.objective_metric = "loss";
    s.maximize = false;
    s.goal = 0.05;
    s.algorithm = "grid";
    s.max_trials = 2;
    s.parallel = 1;
    s.max_failed_trials = 1;
    s.param_names = {"lr", "optimizer"};
    tune::TrialRecord a;
    a.index = 1;
    a.name = "mnist-tune-1";
    a.params = {{"lr", "0.01"}, {"optimizer", "sgd"}};
    a.state = tune::TrialState::Succeeded;
    a.objective = 0.0843;
    a.metrics = {{"accuracy", 0.9712}, {"loss", 0.0843}};
    a.started = "2024-05-01T10:00:00Z";
    a.finished = "2024-05-01T10:01:30Z";
    tune::TrialRecord b;
    b.index = 2;
    b.name = "mnist-tune-2";
    b.params = {{"lr", "0.1"}, {"optimizer", "adam"}};
    b.state = tune::TrialState::Failed;
    b.message = "BackoffLimitExceeded: master-0 exited with code 1";
    b.started = "2024-05-01T10:01:31Z";
    b.finished = "2024-05-01T10:01:40Z";
    b.cost = 0.0012;
    s.trials = {a, b};
    s.best_trial = "mnist-tune-1";
    s.created = "2024-05-01T09:59:59Z";
    s.finished = "2024-05-01T10:01:41Z";
    r.spaces = {"0.01:0.1:step=0.09", "sgd,adam"};
    r.seed = 18446744073709551557ull;  // above INT64_MAX: stored without loss
    r.pid = 4242;
    r.pid_ticks = 123456;
    return r;
}

// A temporary XDG_STATE_HOME for one test.
struct StateHome {
    StateHome() : dir(test::make_temp_dir()) { ::setenv("XDG_STATE_HOME", dir.c_str(), 1); }
    std::string dir;
};

}  // namespace

TEST_CASE("a search's record lives beside the local jobs and reads back unchanged", "[search]") {
    StateHome home;
    SearchRecord record = sample_record();
    REQUIRE(write_search(record).ok());
    CHECK(search_path("mnist-tune") == home.dir + "/kftrain/searches/mnist-tune/search.json");
    CHECK(std::filesystem::exists(home.dir + "/kftrain/searches/mnist-tune/search.json"));
    CHECK(search_names() == std::vector<std::string>{"mnist-tune"});

    auto back = read_search("mnist-tune");
    REQUIRE(back.ok());
    CHECK(record_to_json(*back) == record_to_json(record));
    CHECK(back->seed == record.seed);
    REQUIRE(back->status.trials.size() == 2);
    CHECK(back->status.trials[0].params == record.status.trials[0].params);
    CHECK(back->status.trials[0].objective == 0.0843);
    CHECK(back->status.trials[1].state == tune::TrialState::Failed);
    CHECK(back->status.trials[1].cost == 0.0012);
    CHECK_FALSE(back->status.trials[1].objective.has_value());
    CHECK(back->status.goal == 0.05);
    CHECK_FALSE(back->status.maximize);

    REQUIRE(remove_search("mnist-tune").ok());
    CHECK_FALSE(std::filesystem::exists(home.dir + "/kftrain/searches/mnist-tune"));
}

TEST_CASE("reading a search that does not exist is not found (exit 3)", "[search]") {
    StateHome home;
    auto missing = read_search("no-such-search");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error_code(0) == k_exit_not_found);
    CHECK(missing.error() == "search no-such-search not found on this machine (no " + home.dir +
                                 "/kftrain/searches/no-such-search/search.json)");
    auto bad = read_search("../etc");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error_code(0) == k_exit_bad_input);
}

TEST_CASE("a malformed search record is an error naming its file", "[search]") {
    StateHome home;
    std::filesystem::create_directories(home.dir + "/kftrain/searches/broken");
    test::write_file(home.dir + "/kftrain/searches/broken/search.json", R"({"name": "broken"})");
    auto broken = read_search("broken");
    REQUIRE_FALSE(broken.ok());
    CHECK(broken.error_code(0) == k_exit_cluster);
    CHECK(broken.error() == home.dir +
                                "/kftrain/searches/broken/search.json: field 'objective' is not "
                                "an object; remove the search with: kftrain tune delete broken "
                                "--local");
}

TEST_CASE(
    "a damaged search record is an error naming the file and the field, never the JSON "
    "library's",
    "[search]") {
    StateHome home;
    const std::string path = home.dir + "/kftrain/searches/mnist-tune/search.json";
    struct Case {
        std::string what;
        std::function<void(nlohmann::json&)> damage;
        std::string message;  // after "PATH: "
    };
    const std::vector<Case> cases = {
        {"name of another type", [](auto& d) { d["name"] = 7; }, "field 'name' is not a string"},
        {"another search's name", [](auto& d) { d["name"] = "other"; },
         "field 'name' is other, not the search's name"},
        {"trials not a list", [](auto& d) { d["trials"] = "x"; }, "field 'trials' is not a list"},
        {"a trial not an object", [](auto& d) { d["trials"][0] = 3; },
         "field 'trials[0]' is not an object"},
        {"a trial's index a float", [](auto& d) { d["trials"][1]["index"] = 1e300; },
         "field 'trials[1].index' is not a number"},
        {"a trial's index past int", [](auto& d) { d["trials"][1]["index"] = 1ULL << 40; },
         "field 'trials[1].index' is not a number in range"},
        {"a trial naming another job", [](auto& d) { d["trials"][1]["name"] = "my-job"; },
         "field 'trials[1].name' is my-job, not mnist-tune-2"},
        {"a metric not a number", [](auto& d) { d["trials"][0]["metrics"]["loss"] = "low"; },
         "field 'trials[0].metrics.loss' is not a map of numbers"},
        {"pid -1", [](auto& d) { d["process"]["pid"] = -1; },
         "field 'process.pid' is not a number >= 0"},
        {"pid past pid_t", [](auto& d) { d["process"]["pid"] = 4294967297ULL; },
         "field 'process.pid' is not a number in range"},
        {"maxTrials a string", [](auto& d) { d["maxTrials"] = "12"; },
         "field 'maxTrials' is not a number"},
        {"not an object", [](auto& d) { d = nlohmann::json::array(); }, "not a JSON object"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        nlohmann::json doc = record_to_json(sample_record());
        c.damage(doc);
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        test::write_file(path, doc.dump());
        auto read = read_search("mnist-tune");
        REQUIRE_FALSE(read.ok());
        CHECK(read.error_code(0) == k_exit_cluster);
        CHECK(read.error() ==
              path + ": " + c.message +
                  "; remove the search with: kftrain tune delete mnist-tune --local");
    }
    test::write_file(path, "{\"name\": ");
    CHECK(read_search("mnist-tune").error() ==
          path +
              ": not valid JSON; remove the search with: kftrain tune delete mnist-tune --local");
    // Past the state directory's limit: refused without reading it all, not "not found".
    test::write_file(path, std::string(state::k_max_state_bytes + 1, ' '));
    auto large = read_search("mnist-tune");
    REQUIRE_FALSE(large.ok());
    CHECK(large.error_code(0) == k_exit_cluster);
    CHECK(large.error().rfind(path + ": larger than ", 0) == 0);
}

TEST_CASE(
    "a trial in the record has the shape tune status -o json prints, and the earlier "
    "shape still reads",
    "[search]") {
    StateHome home;
    SearchRecord record = sample_record();
    nlohmann::json doc = record_to_json(record);
    const nlohmann::json& trial = doc["trials"][0];
    CHECK(trial["parameters"] == nlohmann::json{{"lr", "0.01"}, {"optimizer", "sgd"}});
    CHECK(trial == trial_to_json(record.status.trials[0]));

    // A record written before: parameters as a list of {name, value}, read in its order.
    doc["trials"][0]["parameters"] = nlohmann::json::array(
        {{{"name", "optimizer"}, {"value", "sgd"}}, {{"name", "lr"}, {"value", "0.01"}}});
    auto earlier = record_from_json(doc);
    REQUIRE(earlier.ok());
    CHECK(earlier->status.trials[0].params ==
          std::vector<std::pair<std::string, std::string>>{{"optimizer", "sgd"}, {"lr", "0.01"}});
    // The one shape reads back in the search's order, whatever order JSON keeps keys in.
    auto now = record_from_json(record_to_json(record));
    REQUIRE(now.ok());
    CHECK(now->status.trials[1].params == record.status.trials[1].params);
}
