// examples/python-ddp, a user's own PyTorch DDP script, run as the README says: as a local
// PyTorchJob and as a local TrainJob, 2 replicas each, with Debian's python3-torch. While it
// runs, status shows the percentage, ETA and metrics it reports; after it ends, the last.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/local/local_fixture.h"
#include "backend/local/search/local_search.h"
#include "backend/local/state/state_dir.h"
#include "support/crd_schema.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/python_torch.h"
#include "util/run.h"
#include "util/subprocess.h"

using namespace kftrain::test;
using nlohmann::json;

namespace {

const std::string k_example_dir = std::string(kftrain::test::source_dir()) + "/examples/python-ddp";
// Run kftrain in dir (where the example's command finds ddp.py) and return its exit code.
int kftrain_in(const std::string& dir, const std::vector<std::string>& args,
               std::chrono::seconds limit = std::chrono::seconds(60)) {
    kftrain::util::SpawnOptions options;
    options.argv = {kftrain::test::kftrain_binary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = {{"PATH", k_debian_path}};
    options.cwd = dir;
    options.stdout_to = kftrain::util::Redirect::file(dir + "/kftrain.out");
    options.stderr_to = kftrain::util::Redirect::file(dir + "/kftrain.err");
    auto process = kftrain::util::Process::spawn(options);
    REQUIRE(process.ok());
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto status = process->try_wait()) {
            return status->as_shell_code();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL("kftrain " << args.front() << " did not end in time");
    return -1;
}

}  // namespace

TEST_CASE("examples/python-ddp trains as a local PyTorchJob and TrainJob and shows its progress",
          "[local][training][example][python]") {
    if (!python_torch_ready()) {
        return;
    }
    const std::vector<std::pair<std::string, std::string>> jobs_of_kind = {
        {"pytorchjob.yaml", "python-ddp"}, {"trainjob.yaml", "python-ddp-trainjob"}};
    for (const auto& [file, name] : jobs_of_kind) {
        INFO(file);
        LocalJobs jobs;
        const std::string dir = jobs.dir() + "/python-ddp";
        REQUIRE(kftrain::util::make_private_dir(dir).ok());
        for (const std::string part : {"ddp.py", "pytorchjob.yaml", "trainjob.yaml"}) {
            auto text = kftrain::state::read_state_file(k_example_dir + "/" + part);
            REQUIRE(text.ok());
            write_file(dir + "/" + part, *text);
        }
        // The job file as it is; only more epochs, so that it runs long enough to be seen
        // running (the script posts at most every 5 s).
        REQUIRE(kftrain_in(dir,
                           {"submit", "-f", file, "--local", "--set",
                            "args=[--epochs,60,--checkpoint-dir,/checkpoints/" + name + "]"}) == 0);
        json running;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        while (std::chrono::steady_clock::now() < deadline) {
            running = jobs.status_json(name);
            const json& p = running.at("progress");
            if (running.at("state") != "Running" ||
                (p.is_object() && p.contains("metrics") && p.contains("percent"))) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        INFO(running.dump());
        REQUIRE(running.at("state") == "Running");
        const json& progress = running.at("progress");
        CHECK(progress.value("percent", -1.0) >= 0);
        CHECK(progress.value("percent", -1.0) < 100);
        CHECK(progress.contains("etaSeconds"));
        CHECK(progress.at("metrics").contains("loss"));

        const auto done = jobs.wait_finished(name);
        CHECK(done.phase == kftrain::job::JobPhase::Succeeded);
        const json after = jobs.status_json(name);
        INFO(after.dump());
        CHECK(after.at("progress").value("percent", -1.0) == 100);
        CHECK(std::stod(after.at("progress").at("metrics").value("eval_accuracy", "0")) > 0.9);
        // It checkpointed where the volume's localPath maps /checkpoints.
        CHECK(
            kftrain::state::read_state_file(dir + "/checkpoints/" + name + "/checkpoint.pt").ok());
    }
}

TEST_CASE("kftrain run trains examples/python-ddp from its folder with no job file",
          "[local][training][example][python][code]") {
    if (!python_torch_ready()) {
        return;
    }
    LocalJobs jobs;
    const std::string dir = jobs.dir() + "/python-ddp";
    REQUIRE(kftrain::util::make_private_dir(dir).ok());
    auto text = kftrain::state::read_state_file(k_example_dir + "/ddp.py");
    REQUIRE(text.ok());
    write_file(dir + "/ddp.py", *text);
    // As the README's first screen: cd into the folder, run the script on 2 replicas.
    CHECK(kftrain_in(dir,
                     {"run", "--replicas", "2", "--local", "--follow", "--no-progress", "--name",
                      "ddp-run", "--", "python3", "ddp.py", "--epochs", "1", "--samples", "512"},
                     std::chrono::seconds(240)) == 0);
    const json status = jobs.status_json("ddp-run");
    CHECK(status.at("state") == "Succeeded");
    CHECK(status.at("progress").value("percent", -1.0) == 100);
}

TEST_CASE("examples/python-ddp's job files render as both kinds and pass their CRDs",
          "[example][python]") {
    for (const std::string file : {"pytorchjob.yaml", "trainjob.yaml"}) {
        INFO(file);
        const auto run = run_kftrain({"render", "-f", k_example_dir + "/" + file, "-o", "json"});
        REQUIRE(run.code == 0);
        const json manifest = json::parse(run.out);
        const std::string crd = manifest.at("kind") == "TrainJob"
                                    ? kftrain::test::trainjob_crd_file()
                                    : kftrain::test::pytorchjob_crd_file();
        if (crd_readable(crd)) {
            CHECK(check_against_crd(manifest, crd) == std::vector<std::string>{});
        }
    }
}

TEST_CASE("estimate --measure of examples/python-ddp measures it at 1 and 2 replicas",
          "[local][training][example][python][estimate]") {
    if (!python_torch_ready()) {
        return;
    }
    LocalJobs jobs;
    const std::string dir = jobs.dir() + "/python-ddp";
    REQUIRE(kftrain::util::make_private_dir(dir).ok());
    for (const std::string part : {"ddp.py", "pytorchjob.yaml"}) {
        auto text = kftrain::state::read_state_file(k_example_dir + "/" + part);
        REQUIRE(text.ok());
        write_file(dir + "/" + part, *text);
    }
    // The job file as it is, measured as the README shows; it runs to its end at each size.
    REQUIRE(kftrain_in(dir, {"--local", "estimate", "-f", "pytorchjob.yaml", "--measure",
                             "--measure-seconds", "40s", "--profile-out", "ddp-profile.json"}) ==
            0);
    const std::string table = read_bytes(dir + "/kftrain.out");
    INFO(table << read_bytes(dir + "/kftrain.err"));
    CHECK_THAT(table, Catch::Contains("its own program, measured running at 1 and 2 replicas"));
    const json profile = json::parse(read_bytes(dir + "/ddp-profile.json"));
    CHECK(profile.at("measured_from") == "program");
    CHECK(profile.at("program") ==
          "python3 ddp.py --epochs 5 --batch-size 64 --lr 0.05 --checkpoint-dir "
          "/checkpoints/python-ddp");
    REQUIRE(profile.at("sizes").size() == 2);
    for (const auto& size : profile.at("sizes")) {
        CHECK(size.at("basis") == "steps");
        CHECK(size.at("reports").get<int>() >= 2);
        CHECK(size.at("training_s").get<double>() > 0);
    }
    // ddp.py's DistributedSampler gives each of 2 processes half the steps.
    CHECK(profile.at("sizes")[0].at("steps_per_run") == 320);
    CHECK(profile.at("sizes")[1].at("steps_per_run") == 160);
    // The measurement never touched the job's own checkpoints.
    CHECK_FALSE(std::filesystem::exists(dir + "/checkpoints"));
    CHECK(kftrain::backend::local::job_names().empty());
}

TEST_CASE(
    "examples/python-ddp/tune.yaml searches its ${trialParameters.lr} here and finds a "
    "better accuracy than its worst trial",
    "[local][training][example][python][search]") {
    if (!python_torch_ready()) {
        return;
    }
    LocalJobs jobs;
    const std::string dir = jobs.dir() + "/python-ddp";
    REQUIRE(kftrain::util::make_private_dir(dir).ok());
    for (const std::string part : {"ddp.py", "tune.yaml"}) {
        auto text = kftrain::state::read_state_file(k_example_dir + "/" + part);
        REQUIRE(text.ok());
        write_file(dir + "/" + part, *text);
    }
    // The example as it is: 4 trials of one replica, 2 at a time, lr drawn on a log scale.
    const int code =
        kftrain_in(dir, {"tune", "-f", "tune.yaml", "--local"}, std::chrono::seconds(240));
    INFO(kftrain::test::read_bytes(dir + "/kftrain.out")
         << kftrain::test::read_bytes(dir + "/kftrain.err"));
    REQUIRE(code == 0);

    std::ostringstream notes;
    kftrain::backend::local::LocalSearch searches(notes, kftrain::test::kftrain_binary());
    auto status = searches.status("python-ddp-tune");
    REQUIRE(status.ok());
    CHECK(status->phase == "Succeeded");
    REQUIRE(status->trials.size() == 4);
    std::optional<double> best;
    std::optional<double> worst;
    for (const auto& trial : status->trials) {
        INFO(trial.name << " " << trial.message);
        REQUIRE(trial.state == kftrain::tune::TrialState::Succeeded);
        REQUIRE(trial.objective.has_value());
        REQUIRE(trial.params.size() == 1);
        CHECK(trial.params[0].first == "lr");
        // The trial ran with its own lr: ddp.py's start line reports the --lr it was given.
        const auto logs = jobs.log_lines(trial.name);
        CHECK(contains_line(logs, "\"lr\": " + trial.params[0].second));
        CHECK(contains_line(logs, " accuracy="));
        best = std::max(best.value_or(*trial.objective), *trial.objective);
        worst = std::min(worst.value_or(*trial.objective), *trial.objective);
    }
    CHECK(*best > *worst);
}

TEST_CASE("examples/python-tqdm, unchanged, runs as the README runs it and its bar is its progress",
          "[local][training][example][python][progress]") {
    if (!python_torch_ready() || !python_module_ready("tqdm", "python3-tqdm")) {
        return;
    }
    LocalJobs jobs;
    const std::string dir = jobs.dir() + "/python-tqdm";
    REQUIRE(kftrain::util::make_private_dir(dir).ok());
    auto text = kftrain::state::read_state_file(std::string(kftrain::test::source_dir()) +
                                                "/examples/python-tqdm/train.py");
    REQUIRE(text.ok());
    write_file(dir + "/train.py", *text);
    // The README's command, with a name to find it by and a smaller run.
    REQUIRE(kftrain_in(dir,
                       {"run", "--replicas", "2", "--local", "--name", "tqdm-example", "--follow",
                        "--", "python3", "train.py", "--epochs", "2", "--samples", "4096"},
                       std::chrono::seconds(240)) == 0);
    const auto done = jobs.wait_finished("tqdm-example");
    REQUIRE(done.phase == kftrain::job::JobPhase::Succeeded);
    REQUIRE(done.progress);
    CHECK(done.progress->source == "a tqdm bar");
    CHECK(*done.progress->percent == 100);
    CHECK(*done.progress->epoch == 2);
    CHECK(done.progress->loss);
}
