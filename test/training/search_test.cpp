// A real local search: `kftrain tune --local` runs 4 trials of kftrain-trainer on synthetic
// data over a log range of lr, each a local job with its own state and logs, and finds a
// better lr than its worst trial's; Ctrl-C stops a search and kills its running trials.
// Built only with the trainer (test/CMakeLists.txt), which CI always builds.
#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "backend/local/local_fixture.h"
#include "backend/local/search/local_search.h"
#include "search/search_store.h"
#include "support/cli_runner.h"
#include "support/paths.h"
#include "util/subprocess.h"

using kftrain::test::LocalJobs;
using kftrain::tune::TrialRecord;

TEST_CASE("a local search of the real trainer finds a better lr than its worst trial",
          "[local][trainer][search]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/lr-search.yaml";
    // One epoch of an MLP: below lr 0.05 (SGD, momentum 0.9) a larger lr learns more, so the
    // best trial has the larger lr; the draws are seeded by the search's name.
    kftrain::test::write_file(file,
                              "name: lr-search\n"
                              "replicas: 1\n"
                              "env:\n  OMP_NUM_THREADS: \"1\"\n"
                              "trainer:\n"
                              "  dataset: synthetic\n  model: mlp\n  epochs: 1\n"
                              "  batchSize: 32\n  samples: 1024\n  threads: 1\n"
                              "tune:\n"
                              "  params:\n    lr: 0.0005:0.05:log\n"
                              "  objective: accuracy\n"
                              "  maxTrials: 4\n  parallel: 2\n  maxFailedTrials: 0\n"
                              "  algorithm: random\n");
    auto run = jobs.kftrain({"tune", "-f", file, "--local"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);

    std::ostringstream notes;
    kftrain::backend::local::LocalSearch searches(notes, kftrain::test::kftrain_binary());
    auto status = searches.status("lr-search");
    REQUIRE(status.ok());
    CHECK(status->phase == "Succeeded");
    REQUIRE(status->trials.size() == 4);
    const TrialRecord* best = nullptr;
    const TrialRecord* worst = nullptr;
    for (const auto& trial : status->trials) {
        INFO(trial.name);
        REQUIRE(trial.state == kftrain::tune::TrialState::Succeeded);
        REQUIRE(trial.objective.has_value());
        if (best == nullptr || *trial.objective > *best->objective) {
            best = &trial;
        }
        if (worst == nullptr || *trial.objective < *worst->objective) {
            worst = &trial;
        }
        // Each trial ran as its own job, with its own state and logs holding its metric line.
        CHECK(std::filesystem::exists(kftrain::backend::local::state_path(trial.name)));
        CHECK(kftrain::test::contains_line(jobs.log_lines(trial.name), "master-0 | "));
        CHECK(kftrain::test::contains_line(jobs.log_lines(trial.name), " accuracy="));
    }
    CHECK(status->best_trial == best->name);
    CHECK(*best->objective > *worst->objective);
    CHECK(std::stod(best->params.at(0).second) > std::stod(worst->params.at(0).second));

    // tune status, as a user runs it from another terminal, marks the best trial.
    auto shown = jobs.kftrain({"tune", "status", "lr-search", "--local"});
    INFO(shown.out << shown.err);
    CHECK(shown.code == 0);
    CHECK(shown.out.find("\n" + std::to_string(best->index) + "*  ") != std::string::npos);
    CHECK(shown.out.find("Best: trial " + std::to_string(best->index) + " (accuracy=") !=
          std::string::npos);
    auto json = jobs.kftrain({"tune", "status", "lr-search", "--local", "-o", "json"});
    REQUIRE(json.code == 0);
    CHECK(nlohmann::json::parse(json.out)["bestTrial"]["name"] == best->name);
}

namespace {

constexpr auto k_trial_poll = std::chrono::milliseconds(100);

// A search whose trials train for minutes, so they are running when the interrupt comes.
constexpr const char* k_long_search =
    "name: ctrl-c\n"
    "replicas: 1\n"
    "env:\n  OMP_NUM_THREADS: \"1\"\n"
    "trainer:\n"
    "  dataset: synthetic\n  model: mlp\n  epochs: 1000\n"
    "  batchSize: 32\n  samples: 8192\n  threads: 1\n"
    "tune:\n"
    "  params:\n    lr: 0.0005:0.05:log\n"
    "  objective: accuracy\n"
    "  maxTrials: 6\n  parallel: 2\n"
    "  algorithm: random\n";

// A process of a trial's job: its supervisor or a replica, with its start time.
struct TrialProcess {
    std::string what;
    long long pid = 0;
    unsigned long long ticks = 0;
};

// Return the supervisor and the started replicas of a trial's job, as its state.json says.
std::vector<TrialProcess> trial_processes(const std::string& job) {
    std::vector<TrialProcess> found;
    auto state = kftrain::backend::local::read_job_state(job);
    if (!state) {
        return found;
    }
    if (state->supervisor_pid != 0) {
        found.push_back({job + " supervisor", state->supervisor_pid, state->supervisor_ticks});
    }
    for (const auto& r : state->replicas) {
        if (r.pid != 0) {
            found.push_back({job + " " + r.name, r.pid, r.start_ticks});
        }
    }
    return found;
}

// Return the names of the search's Running trials whose trainer runs now.
std::set<std::string> trials_training(const std::string& search) {
    std::set<std::string> names;
    auto record = kftrain::search::read_search(search);
    if (!record) {
        return names;
    }
    for (const auto& trial : record->status.trials) {
        if (trial.state != kftrain::tune::TrialState::Running) {
            continue;
        }
        for (const auto& p : trial_processes(trial.name)) {
            if (p.what != trial.name + " supervisor" &&
                kftrain::util::process_alive(p.pid, p.ticks)) {
                names.insert(trial.name);
            }
        }
    }
    return names;
}

// Return the supervisor and replicas of every trial the search has recorded.
std::vector<TrialProcess> search_processes(const std::string& search) {
    std::vector<TrialProcess> found;
    auto record = kftrain::search::read_search(search);
    REQUIRE(record.ok());
    for (const auto& trial : record->status.trials) {
        auto more = trial_processes(trial.name);
        found.insert(found.end(), more.begin(), more.end());
    }
    return found;
}

// Check that none of the processes runs, giving them a minute to end.
void check_all_ended(const std::vector<TrialProcess>& processes) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    for (const auto& p : processes) {
        INFO(p.what << " (pid " << p.pid << ")");
        while (kftrain::util::process_alive(p.pid, p.ticks) &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(k_trial_poll);
        }
        CHECK_FALSE(kftrain::util::process_alive(p.pid, p.ticks));
    }
}

}  // namespace

TEST_CASE("Ctrl-C interrupts a local search with exit 130 and kills its running trials",
          "[local][trainer][search]") {
    LocalJobs jobs;
    const std::string file = jobs.dir() + "/ctrl-c.yaml";
    kftrain::test::write_file(file, k_long_search);
    kftrain::util::SpawnOptions options;
    options.argv = {kftrain::test::kftrain_binary(), "tune", "-f", file, "--local"};
    options.env = {{"XDG_STATE_HOME", jobs.dir() + "/state"}};
    options.stdout_to = kftrain::util::Redirect::file(jobs.dir() + "/tune.out");
    options.stderr_to = kftrain::util::Redirect::file(jobs.dir() + "/tune.err");
    // Its own process group, as a shell gives a foreground job: Ctrl-C signals that group.
    options.new_session = true;
    auto spawned = kftrain::util::Process::spawn(options);
    REQUIRE(spawned.ok());
    kftrain::test::Reaped tune{std::move(*spawned)};
    auto printed = [&] {
        auto out = kftrain::state::read_state_file(jobs.dir() + "/tune.out");
        auto err = kftrain::state::read_state_file(jobs.dir() + "/tune.err");
        return (out ? *out : "") + "\n--- stderr:\n" + (err ? *err : "");
    };

    // Wait until a trial's trainer runs: search.json lists it Running only after the search
    // catches SIGINT, so the signal reaches its handler, not the default action.
    std::set<std::string> training;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while ((training = trials_training("ctrl-c")).empty()) {
        if (tune.process.try_wait() || std::chrono::steady_clock::now() > deadline) {
            FAIL("no trial of search ctrl-c started training in time\n" << printed());
        }
        std::this_thread::sleep_for(k_trial_poll);
    }
    auto before = search_processes("ctrl-c");

    // Ctrl-C: SIGINT to kftrain's process group (its trials' supervisors and replicas run in
    // sessions of their own, so the search alone must stop them).
    tune.process.signal(SIGINT);
    auto ended = kftrain::test::wait_exit(tune.process, std::chrono::minutes(3), printed);
    INFO(printed());
    CHECK(ended.signal == 0);  // it handled the interrupt and exited, not killed by it
    CHECK(ended.code == 130);

    // tune status, from another terminal, shows the search Interrupted and its trials Killed
    // (exit 1, as for a Failed search).
    auto json = jobs.kftrain({"tune", "status", "ctrl-c", "--local", "-o", "json"});
    INFO(json.out << json.err);
    CHECK(json.code == 1);
    auto doc = nlohmann::json::parse(json.out);
    CHECK(doc["phase"] == "Interrupted");
    std::map<std::string, std::string> states;
    for (const auto& trial : doc["trials"]) {
        states[trial["name"].get<std::string>()] = trial["state"].get<std::string>();
    }
    for (const auto& name : training) {
        CHECK(states[name] == "Killed");
    }
    for (const auto& [name, state] : states) {
        INFO(name);
        CHECK(state != "Running");
        CHECK(state != "Pending");
    }

    // No supervisor or trainer of any trial runs on; stopping them may take a moment.
    auto after = search_processes("ctrl-c");
    after.insert(after.end(), before.begin(), before.end());
    REQUIRE_FALSE(after.empty());
    check_all_ended(after);

    // The table was printed as the search ended.
    auto out = kftrain::state::read_state_file(jobs.dir() + "/tune.out");
    REQUIRE(out.ok());
    CHECK(out->find("search ctrl-c started (local)") != std::string::npos);
    CHECK(out->find("State:      Interrupted (ExperimentInterrupted): stopped by an interrupt "
                    "(Ctrl-C); its running trials were killed\n") != std::string::npos);
    for (const auto& name : training) {
        CHECK(out->find(name + "  Killed") != std::string::npos);
    }
}
