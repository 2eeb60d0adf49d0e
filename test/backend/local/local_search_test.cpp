// The local search end to end with stand-in trials: each trial is a real local job (its
// supervisor is the built kftrain) whose command fails, prints a metric, or prints none.
#include "backend/local/search/local_search.h"

#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "backend/local/local_backend.h"
#include "backend/local/local_fixture.h"
#include "backend/local/search/local_trial.h"
#include "backend/local/state/name_lock.h"
#include "cli/view/search_view.h"
#include "job/exit_codes.h"
#include "manifest/load.h"
#include "search/search_store.h"
#include "support/paths.h"
#include "tune/experiment.h"
#include "tune/param_space.h"

using namespace kftrain;
using namespace kftrain::cli;
using kftrain::test::LocalJobs;

namespace {

// A search over lr of a job running command (a one-replica job that never restarts).
job::SearchRequest request_for(const std::string& name, const std::string& command, int max_trials,
                               int parallel, int max_failed) {
    auto job = manifest::load_job_text("name: " + name +
                                           "\nreplicas: 1\nrestartPolicy: Never\n"
                                           "runPolicy:\n  backoffLimit: 0\ncommand: " +
                                           command + "\n",
                                       "job.yaml", {});
    REQUIRE(job.ok());
    job::SearchRequest request;
    request.job = *job;
    request.report = cli::view::search_report();
    request.spec.name = name;
    auto lr = tune::parse_param("lr", "0.001:0.1:log", "--param lr");
    REQUIRE(lr.ok());
    request.spec.params = {*lr};
    request.spec.max_trials = max_trials;
    request.spec.parallel = parallel;
    request.spec.max_failed_trials = max_failed;
    request.job_template = manifest::default_template(job->kind);
    return request;
}

struct SearchRun {
    int code = -1;
    std::string out;
    std::string err;
};

SearchRun run_search(backend::local::LocalSearch& searches, const job::SearchRequest& request) {
    std::ostringstream out, err;
    job::Reporter report{out, err};
    SearchRun run;
    auto started = searches.start(request, report);
    run.code = started ? *started : started.error_code(k_exit_cluster);
    if (!started) {  // as the tune verb prints it
        err << "kftrain: error: " << started.error() << "\n";
    }
    run.out = out.str();
    run.err = err.str();
    return run;
}

std::unique_ptr<backend::local::LocalSearch> make_searches(std::ostream& err) {
    auto searches =
        std::make_unique<backend::local::LocalSearch>(err, kftrain::test::kftrain_binary());
    searches->set_poll_interval(std::chrono::milliseconds(20));
    return searches;
}

int count_state(const tune::SearchStatus& s, tune::TrialState state) {
    return static_cast<int>(std::count_if(s.trials.begin(), s.trials.end(),
                                          [&](const auto& t) { return t.state == state; }));
}

}  // namespace

TEST_CASE("a local search whose trials fail stops once more than max-failed-trials failed",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto run = run_search(*searches, request_for("broken", "[\"false\"]", 8, 2, 1));
    INFO(run.out << run.err);
    CHECK(run.code == k_exit_job_failed);

    auto status = searches->status("broken");
    REQUIRE(status.ok());
    CHECK(status->phase == "Failed");
    CHECK(status->reason == "ExperimentFailed");
    CHECK(status->message.find("more than the 1 allowed") != std::string::npos);
    CHECK(count_state(*status, tune::TrialState::Failed) >= 2);
    CHECK(status->trials.size() < 8);  // it stopped early
    for (const auto& trial : status->trials) {
        CHECK((trial.state == tune::TrialState::Failed || trial.state == tune::TrialState::Killed));
        CHECK_FALSE(trial.finished.empty());
    }
    CHECK(run.out.find("trial 1 broken-1 Failed  lr=") != std::string::npos);
    CHECK(run.out.find("State:      Failed (ExperimentFailed)") != std::string::npos);
}

TEST_CASE("a local search stops at the first trial that reaches the goal", "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto request =
        request_for("goal", "[\"sh\", \"-c\", \"echo accuracy=0.95 loss=0.1\"]", 5, 1, 3);
    request.spec.objective.goal = 0.9;
    auto run = run_search(*searches, request);
    INFO(run.out << run.err);
    CHECK(run.code == k_exit_ok);

    auto status = searches->status("goal");
    REQUIRE(status.ok());
    CHECK(status->phase == "Succeeded");
    CHECK(status->reason == "ExperimentGoalReached");
    REQUIRE(status->trials.size() == 1);
    CHECK(status->trials[0].state == tune::TrialState::Succeeded);
    CHECK(status->trials[0].objective == 0.95);
    CHECK(status->trials[0].metrics.at("loss") == 0.1);
    CHECK(status->best_trial == "goal-1");
    CHECK(run.out.find("trial 1 goal-1 Succeeded  lr=") != std::string::npos);
    CHECK(run.out.find("  accuracy=0.95\n") != std::string::npos);
    CHECK(run.out.find("\nBest: trial 1 (accuracy=0.95): lr=") != std::string::npos);
}

TEST_CASE("a trial that prints no objective is MetricsUnavailable and the search fails",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto run = run_search(*searches, request_for("silent", "[\"true\"]", 2, 2, 2));
    INFO(run.out << run.err);
    CHECK(run.code == k_exit_job_failed);
    auto status = searches->status("silent");
    REQUIRE(status.ok());
    CHECK(status->phase == "Failed");
    CHECK(status->reason == "ExperimentMaxTrialsReached");
    CHECK(status->message == "all 2 trials (max trials) ended and none succeeded");
    REQUIRE(status->trials.size() == 2);
    for (const auto& trial : status->trials) {
        CHECK(trial.state == tune::TrialState::MetricsUnavailable);
        CHECK(trial.message ==
              "its output had no accuracy=VALUE line and no progress line with accuracy");
    }
}

TEST_CASE("a local search names its trials, and delete removes their jobs and the record",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto run = run_search(*searches, request_for("named", "[\"true\"]", 3, 3, 3));
    INFO(run.out << run.err);
    REQUIRE(run.code == k_exit_job_failed);

    auto by_index = searches->trial_job("named", "2");
    REQUIRE(by_index.ok());
    CHECK(*by_index == "named-2");
    auto by_name = searches->trial_job("named", "named-3");
    REQUIRE(by_name.ok());
    CHECK(*by_name == "named-3");
    auto missing = searches->trial_job("named", "9");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error_code(0) == k_exit_not_found);
    CHECK(missing.error() == "search named has no trial 9 (it has 1 to 3)");
    for (const char* trial : {"named-1", "named-2", "named-3"}) {
        CHECK(std::filesystem::exists(backend::local::state_path(trial)));
    }

    REQUIRE(searches->remove("named").ok());
    for (const char* trial : {"named-1", "named-2", "named-3"}) {
        CHECK_FALSE(std::filesystem::exists(backend::local::job_dir(trial)));
    }
    auto gone = searches->status("named");
    REQUIRE_FALSE(gone.ok());
    CHECK(gone.error_code(0) == k_exit_not_found);
}

TEST_CASE("a local search refuses bayesian optimization and a search already running",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto request = request_for("busy", "[\"true\"]", 2, 1, 1);
    request.spec.algorithm = "bayesianoptimization";
    auto refused = run_search(*searches, request);
    CHECK(refused.code == k_exit_bad_input);
    CHECK(refused.err ==
          "kftrain: error: --algorithm bayesianoptimization: bayesianoptimization and tpe need "
          "Katib's suggestion services on a cluster (run without --local); random and grid run "
          "locally\n");

    // A search another kftrain runs: it holds the name's lock, its record names it.
    auto held = backend::local::NameLock::acquire_file(search::search_lock_path("busy"), "busy",
                                                       std::chrono::milliseconds(0));
    REQUIRE(held.ok());
    search::SearchRecord running;
    running.status.name = "busy";
    running.status.phase = "Running";
    running.status.objective_metric = "accuracy";
    running.pid = ::getpid();
    running.pid_ticks = util::process_start_ticks(running.pid).value_or(0);
    REQUIRE(search::write_search(running).ok());
    request.spec.algorithm = "random";
    auto busy = run_search(*searches, request);
    CHECK(busy.code == k_exit_bad_input);
    CHECK(busy.err == fmt::format("kftrain: error: search busy is already running on this "
                                  "machine (pid {}); wait for it or delete it with `kftrain tune "
                                  "delete busy --local`\n",
                                  ::getpid()));
    auto record = search::read_search("busy");  // left as it was
    REQUIRE(record.ok());
    CHECK(record->status.phase == "Running");
}

TEST_CASE("a search whose kftrain is gone shows as lost", "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    search::SearchRecord record;
    record.status.name = "lost";
    record.status.phase = "Running";
    record.status.objective_metric = "accuracy";
    record.pid = 999999999;  // no such process
    REQUIRE(search::write_search(record).ok());
    auto status = searches->status("lost");
    REQUIRE(status.ok());
    CHECK(status->phase == "Failed");
    CHECK(status->reason == "SearchLost");
}

TEST_CASE("a trial's job sets its values, metric lines and its own checkpoint directory",
          "[search]") {
    auto job = manifest::load_job_text(
        "name: mnist\ntrainer:\n  lr: \"0.01\"\n  epochs: 2\n  checkpointDir: /ckpt/\n", "job.yaml",
        {});
    REQUIRE(job.ok());
    auto trial = tune::trial_job_spec(*job, {{"lr", "0.05"}, {"momentum", "0.7"}}, "mnist-tune-3");
    CHECK(trial.name == "mnist-tune-3");
    CHECK(trial.trainer_value("lr", "") == "0.05");
    CHECK(trial.trainer_value("momentum", "") == "0.7");
    CHECK(trial.trainer_value("epochs", "") == "2");
    CHECK(trial.trainer_value("metricLines", "") == "true");
    CHECK(trial.trainer_value("checkpointDir", "") == "/ckpt/mnist-tune-3");
    CHECK(job->trainer_value("checkpointDir", "") == "/ckpt/");
    // A local search's run id makes each run's directories its own.
    auto local = tune::trial_job_spec(*job, {}, "mnist-tune-3", "0a1b2c3d");
    CHECK(local.trainer_value("checkpointDir", "") == "/ckpt/mnist-tune-3-0a1b2c3d");
}

TEST_CASE("a grid search tries each point in order, run again with --replace, it is replaced",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    // Katib refuses more trials than grid points, so this grid of 2 runs 2 trials.
    auto request = request_for("gridded", "[\"sh\", \"-c\", \"echo accuracy=0.5\"]", 2, 2, 1);
    auto optimizer = tune::parse_param("optimizer", "sgd,adam", "--param optimizer");
    REQUIRE(optimizer.ok());
    request.spec.params = {*optimizer};
    request.spec.algorithm = "grid";
    for (int round = 1; round <= 2; ++round) {
        request.replace = round == 2;
        auto run = run_search(*searches, request);
        INFO("round " << round << "\n" << run.out << run.err);
        CHECK(run.code == k_exit_ok);
        auto status = searches->status("gridded");
        REQUIRE(status.ok());
        CHECK(status->phase == "Succeeded");
        CHECK(status->reason == "ExperimentMaxTrialsReached");
        REQUIRE(status->trials.size() == 2);
        CHECK(status->trials[0].params == tune::Assignment{{"optimizer", "sgd"}});
        CHECK(status->trials[1].params == tune::Assignment{{"optimizer", "adam"}});
        CHECK(status->best_trial == "gridded-1");  // a tie goes to the earlier trial
    }
}

TEST_CASE("a local search refuses to take over a local job named like one of its trials",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    // The user's own job, named as the search's second trial would be.
    auto own = request_for("mine-2", "[\"true\"]", 1, 1, 0);
    auto manifest = manifest::render_job(own.job, own.job_template);
    REQUIRE(manifest.ok());
    backend::local::LocalBackend backend(notes, kftrain::test::kftrain_binary());
    REQUIRE(backend
                .submit(job::RenderedJob{own.job, *manifest, std::nullopt, YAML::Node()},
                        job::SubmitFlags{})
                .ok());

    auto run = run_search(*searches, request_for("mine", "[\"true\"]", 3, 1, 3));
    CHECK(run.code == k_exit_bad_input);
    CHECK(run.err ==
          "kftrain: error: a local job named mine-2 exists and is not a trial of search mine; "
          "the trials of a search are named mine-1 to mine-3: delete that job or choose another "
          "--name\n");
    CHECK(std::filesystem::exists(backend::local::state_path("mine-2")));
    CHECK_FALSE(std::filesystem::exists(backend::local::job_dir("mine-1")));
}

TEST_CASE("a local search run again without --replace is refused and its record kept",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto request = request_for("again", "[\"sh\", \"-c\", \"echo accuracy=0.5\"]", 2, 2, 0);
    auto first = run_search(*searches, request);
    INFO(first.out << first.err);
    REQUIRE(first.code == k_exit_ok);
    auto before = search::read_search("again");
    REQUIRE(before.ok());

    auto refused = run_search(*searches, request);
    CHECK(refused.code == k_exit_bad_input);
    CHECK(refused.out.empty());
    CHECK(refused.err ==
          "kftrain: error: search again exists on this machine (Succeeded, 2 trials); run again "
          "with --replace to delete it and its trials' jobs first, or delete it with `kftrain "
          "tune delete again --local`; nothing was started\n");
    auto after = search::read_search("again");
    REQUIRE(after.ok());
    CHECK(search::record_to_json(*after) == search::record_to_json(*before));

    request.replace = true;
    auto replaced = run_search(*searches, request);
    INFO(replaced.out << replaced.err);
    CHECK(replaced.code == k_exit_ok);
    auto now = search::read_search("again");
    REQUIRE(now.ok());
    CHECK(now->run != before->run);  // a new run: its trials checkpoint elsewhere
    CHECK(now->run.size() == 8);
}

TEST_CASE("a local search's directory is private (0700) and its record 0600", "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto run = run_search(*searches, request_for("private", "[\"true\"]", 1, 1, 1));
    INFO(run.out << run.err);
    namespace fs = std::filesystem;
    const fs::path record = search::search_path("private");
    const auto perms = [](const fs::path& path) {
        return fs::status(path).permissions() & fs::perms::all;
    };
    CHECK(perms(record.parent_path()) == fs::perms::owner_all);
    CHECK(perms(record.parent_path().parent_path()) == fs::perms::owner_all);
    CHECK(perms(record) == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("a local search refuses more trials than its cap before anything runs",
          "[search][local]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    auto refused = run_search(*searches, request_for("huge", "[\"true\"]", 1000000000, 3, 3));
    CHECK(refused.code == k_exit_bad_input);
    CHECK(refused.err ==
          "kftrain: error: --max-trials (tune.maxTrials) 1000000000: a local search runs at most "
          "10000 trials; run a larger one on a cluster (Katib)\n");
    CHECK_FALSE(std::filesystem::exists(search::search_path("huge")));
    CHECK(backend::local::job_names().empty());
}

TEST_CASE("a trial of a program of its own runs with its value and reports through progress lines",
          "[search][local][placeholders]") {
    LocalJobs jobs;
    std::ostringstream notes;
    auto searches = make_searches(notes);
    // The program echoes the lr it is given as the accuracy of an epoch's end; a line within
    // an epoch (a window of batches) reports more, and is not an epoch's result.
    auto job = manifest::load_job_text(
        R"yaml(name: echoes
replicas: 1
restartPolicy: Never
runPolicy:
  backoffLimit: 0
command:
  - sh
  - -c
  - 'echo "{\"event\": \"progress\", \"accuracy\": 2}"; echo "{\"event\": \"epoch\", \"accuracy\": $0}"; echo "{\"event\": \"finish\", \"loss\": 0.5, \"metrics\": {\"f1\": 0.25}}"'
  - "${trialParameters.lr}"
)yaml",
        "job.yaml", {});
    REQUIRE(job.ok());
    job::SearchRequest request;
    request.job = *job;
    request.spec.name = "echoes";
    auto lr = tune::parse_placeholder_param("lr", "0.001:0.1:log", "--param lr");
    REQUIRE(lr.ok());
    request.spec.params = {*lr};
    request.spec.max_trials = 2;
    request.spec.parallel = 2;
    request.spec.max_failed_trials = 0;
    request.job_template = manifest::default_template(job->kind);
    auto run = run_search(*searches, request);
    INFO(run.out << run.err);
    CHECK(run.code == k_exit_ok);
    auto status = searches->status("echoes");
    REQUIRE(status.ok());
    REQUIRE(status->trials.size() == 2);
    for (const auto& trial : status->trials) {
        INFO(trial.name << " " << trial.message);
        REQUIRE(trial.state == tune::TrialState::Succeeded);
        CHECK(trial.objective == std::stod(trial.params.at(0).second));
        CHECK(trial.metrics.at("loss") == 0.5);
        CHECK(trial.metrics.at("f1") == 0.25);
    }
}
