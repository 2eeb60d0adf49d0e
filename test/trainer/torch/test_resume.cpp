// Checkpoints, SIGTERM and resume, with real trainer processes.
#include <csignal>
#include <filesystem>

#include "trainer/checkpoint/files.h"
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

// A slow enough run (mnist-cnn, small batches) to be interrupted mid-way: 4 epochs of 16 steps.
std::vector<std::string> cnn_args(const std::string& dir) {
    return {"--model",
            "mnist-cnn",
            "--samples",
            "512",
            "--batch-size",
            "16",
            "--epochs",
            "4",
            "--log-format",
            "json",
            "--log-every",
            "1",
            "--threads",
            "1",
            "--checkpoint-dir",
            dir + "/ckpt",
            "--checkpoint-every",
            "4",
            "--keep-checkpoints",
            "2",
            "--timeout",
            "60"};
}

int64_t last_checkpoint_step(const Rank& r) {
    const auto cps = events(r, "checkpoint");
    REQUIRE(!cps.empty());
    return cps.back()["global_step"].get<int64_t>();
}

}  // namespace

TEST_CASE("SIGTERM to one rank checkpoints, exits 143, and the rerun resumes at that step",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    const auto args = cnn_args(dir);
    const auto first = start_job(dir, 2, args);
    REQUIRE(wait_for_output(first[0], "\"global_step\":3,", 60s));
    ::kill(first[1].pid, SIGTERM);
    CHECK(wait_exit(first[0], 60s) == 143);
    CHECK(wait_exit(first[1], 60s) == 143);
    const int64_t stopped_at = last_checkpoint_step(first[0]);
    CHECK(stopped_at < 4 * 16);
    CHECK(kftrain::trainer::checkpoint::newest_checkpoint(dir + "/ckpt") ==
          dir + "/ckpt/" + kftrain::trainer::checkpoint::checkpoint_name(stopped_at));
    CHECK(kftrain::trainer::checkpoint::list_checkpoints(dir + "/ckpt").size() <= 2);

    const std::string logs = make_temp_dir();
    const auto second = start_job(logs, 2, args);
    for (const auto& r : second) {
        CHECK(wait_exit(r, 120s) == 0);
    }
    for (const auto& r : second) {
        CHECK(events(r, "start").at(0)["resumed_from"] == stopped_at);
    }
    CHECK(events(second[0], "progress").at(0)["global_step"] == stopped_at + 1);
    CHECK(events(second[0], "finish").at(0)["global_step"] == 4 * 16);
}

TEST_CASE("a run killed after a checkpoint resumes from the newest checkpoint and finishes",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    auto args = cnn_args(dir);
    const auto first = start_trainer(dir, "first", args, {});
    REQUIRE(wait_for_output(first, "\"event\":\"checkpoint\"", 60s));
    ::kill(first.pid, SIGKILL);
    CHECK(wait_exit(first, 10s) == 128 + SIGKILL);
    const auto newest = kftrain::trainer::checkpoint::newest_checkpoint(dir + "/ckpt");
    REQUIRE(newest);
    const auto step = *kftrain::trainer::checkpoint::checkpoint_step(
        std::filesystem::path(*newest).filename().string());

    const auto second = start_trainer(dir, "second", args, {});
    CHECK(wait_exit(second, 120s) == 0);
    CHECK(events(second, "start").at(0)["resumed_from"] == step);
    CHECK(events(second, "progress").at(0)["global_step"] == step + 1);
    const auto finish = events(second, "finish");
    REQUIRE(finish.size() == 1);
    CHECK(finish[0]["global_step"] == 4 * 32);
}

TEST_CASE("resuming with another world size restarts the checkpoint's epoch, with a warning",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    // 256 samples in batches of 32: 8 steps per epoch on 1 rank, 4 on 2.
    const std::vector<std::string> args{
        "--model",   "mlp", "--samples",        "256",         "--batch-size",       "32",
        "--epochs",  "1",   "--log-format",     "json",        "--log-every",        "1",
        "--threads", "1",   "--checkpoint-dir", dir + "/ckpt", "--checkpoint-every", "4",
        "--timeout", "60"};
    const auto one = start_trainer(dir, "one", args, {});
    REQUIRE(wait_exit(one, 120s) == 0);
    // Keep only the checkpoint of step 4: half-way through the epoch of 8 steps.
    namespace ck = kftrain::trainer::checkpoint;
    REQUIRE(std::filesystem::remove(dir + "/ckpt/" + ck::checkpoint_name(8)));
    REQUIRE(ck::newest_checkpoint(dir + "/ckpt") == dir + "/ckpt/" + ck::checkpoint_name(4));

    const std::string logs = make_temp_dir();
    const auto two = start_job(logs, 2, args);
    for (const auto& r : two) {
        CHECK(wait_exit(r, 120s) == 0);
    }
    // Step 4 is the end of the epoch in epochs of 4 steps: without the warning's restart the
    // rest of epoch 1 would be skipped, and its evaluation with it.
    const auto warnings = events(two[0], "warning");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0]["message"] ==
          "the checkpoint's step 4 was counted in epochs of another length (another world size, "
          "--batch-size or --samples): epoch 1 starts again from its first step");
    CHECK(events(two[0], "progress").at(0)["global_step"] == 1);
    const auto finish = events(two[0], "finish");
    REQUIRE(finish.size() == 1);
    CHECK(finish[0]["global_step"] == 4);
    CHECK(finish[0]["accuracy"].get<double>() > 0);
}

TEST_CASE("a restart after the last checkpoint evaluates it instead of reporting zeros",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    const std::vector<std::string> args{
        "--model",        "mlp",  "--samples",        "256",        "--batch-size", "32",
        "--epochs",       "1",    "--log-format",     "json",       "--threads",    "1",
        "--metric-lines", "true", "--checkpoint-dir", dir + "/ckpt"};
    const auto first = start_trainer(dir, "first", args, {});
    REQUIRE(wait_exit(first, 120s) == 0);
    const auto again = start_trainer(dir, "again", args, {});
    REQUIRE(wait_exit(again, 120s) == 0);
    CHECK(events(again, "start").at(0)["resumed_from"] == 8);
    CHECK(events(again, "progress").empty());
    const auto warnings = events(again, "warning");
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0]["message"] ==
          "the checkpoint of step 8 already completes 1 epoch: nothing left to train; "
          "evaluating it");
    // The evaluation of the checkpoint: the same figures as the first run's last one.
    const auto evals = events(again, "eval");
    REQUIRE(evals.size() == 1);
    CHECK(evals[0]["accuracy"] == events(first, "eval").back()["accuracy"]);
    const auto finish = events(again, "finish");
    REQUIRE(finish.size() == 1);
    CHECK(finish[0]["accuracy"] == evals[0]["accuracy"]);
    CHECK(finish[0]["accuracy"].get<double>() > 0);
    CHECK(read_bytes(again.out_path).find("accuracy=") != std::string::npos);  // for Katib
}
