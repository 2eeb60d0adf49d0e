// What `tune delete` does with a search record it did not write as it is: a damaged record is
// deleted all the same, and a record naming a process by its pid alone (no start time, or
// another one) never leads kftrain to signal that process.
#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backend/local/local_fixture.h"
#include "backend/local/search/local_search.h"
#include "job/exit_codes.h"
#include "search/search_store.h"
#include "support/paths.h"
#include "util/process_info.h"
#include "util/subprocess.h"

using namespace kftrain;
using kftrain::test::LocalJobs;

namespace {

// A search record as a running search writes it, naming process pid started at ticks.
search::SearchRecord running_record(const std::string& name, long long pid,
                                    unsigned long long ticks) {
    search::SearchRecord record;
    record.status.name = name;
    record.status.phase = "Running";
    record.status.objective_metric = "accuracy";
    record.pid = pid;
    record.pid_ticks = ticks;
    return record;
}

// A process unrelated to any search: a sleep that the test ends itself.
struct Bystander {
    util::Process process;
    Bystander() : process(start()) {}
    ~Bystander() {
        if (!process.try_wait()) {
            process.signal(SIGKILL);
            process.wait();
        }
    }
    static util::Process start() {
        util::SpawnOptions options;
        options.argv = {"sleep", "300"};
        options.stdout_to = util::Redirect::null();
        options.stderr_to = util::Redirect::null();
        auto spawned = util::Process::spawn(options);
        REQUIRE(spawned.ok());
        return std::move(*spawned);
    }
};

}  // namespace

TEST_CASE("tune delete never signals a process a record names without its start time",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    backend::local::LocalSearch searches(notes, kftrain::test::kftrain_binary());
    Bystander bystander;
    const long long pid = bystander.process.pid();
    auto ticks = util::process_start_ticks(pid);
    REQUIRE(ticks.has_value());
    for (unsigned long long recorded : {0ULL, *ticks + 1}) {
        INFO("startTicks " << recorded);
        REQUIRE(search::write_search(running_record("planted", pid, recorded)).ok());
        auto removed = searches.remove("planted");
        INFO(notes.str());
        CHECK(removed.ok());
        CHECK_FALSE(std::filesystem::exists(search::search_path("planted")));
        CHECK_FALSE(bystander.process.try_wait().has_value());  // still running, unsignalled
        // tune status calls such a search lost, not running.
        REQUIRE(search::write_search(running_record("planted", pid, recorded)).ok());
        auto status = searches.status("planted");
        REQUIRE(status.ok());
        CHECK(status->reason == "SearchLost");
        REQUIRE(searches.remove("planted").ok());
    }
}

TEST_CASE("tune delete removes a damaged search record, saying what it could not read",
          "[search][local]") {
    LocalJobs jobs;
    const std::vector<std::string> damaged = {
        "",
        "{\"name\": ",
        "[1, 2]",
        R"({"name": "broken", "objective": {"metric": "accuracy"}, "parameters": [],
            "trials": [{"index": "one"}]})",
        R"({"name": "broken", "objective": {"metric": "accuracy"}, "parameters": [],
            "trials": [], "process": {"pid": -1, "startTicks": 0}})",
        std::string(state::k_max_state_bytes + 1, '{'),
    };
    for (const auto& text : damaged) {
        INFO(text.substr(0, 80));
        const std::string path = search::search_path("broken");
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        test::write_file(path, text);
        auto status = jobs.kftrain({"tune", "status", "broken", "--local"});
        CHECK(status.code == k_exit_cluster);
        CHECK(status.err.rfind("kftrain: error: " + path + ": ", 0) == 0);
        CHECK(status.err.find("json.exception") == std::string::npos);

        auto deleted = jobs.kftrain({"tune", "delete", "broken", "--local"});
        CHECK(deleted.code == k_exit_ok);
        CHECK(deleted.out == "search broken deleted, with its trials' jobs\n");
        CHECK(deleted.err.rfind("kftrain: warning: " + path + ": ", 0) == 0);
        CHECK(deleted.err.find("json.exception") == std::string::npos);
        CHECK_FALSE(std::filesystem::exists(std::filesystem::path(path).parent_path()));
    }
    auto gone = jobs.kftrain({"tune", "delete", "broken", "--local"});
    CHECK(gone.code == k_exit_not_found);
}
