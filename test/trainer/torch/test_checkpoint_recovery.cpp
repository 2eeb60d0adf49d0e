// Damaged checkpoints, leftover temporary files and a diverging loss, with real trainer
// processes (issue #19).
#include <filesystem>

#include "trainer/checkpoint/files.h"
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;
namespace ckpt = kftrain::trainer::checkpoint;

namespace {

// A quick run: mlp on 256 synthetic samples, 16 steps of 16 per epoch on one rank,
// checkpoints every 4 steps, the newest 2 kept.
std::vector<std::string> quick_args(const std::string& dir, int epochs) {
    return {"--model",
            "mlp",
            "--samples",
            "256",
            "--batch-size",
            "16",
            "--epochs",
            std::to_string(epochs),
            "--log-format",
            "json",
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

std::string ckpt_path(const std::string& dir, int64_t step) {
    return dir + "/ckpt/" + ckpt::checkpoint_name(step);
}

// Train one epoch and leave the checkpoints of steps 12 and 16.
void first_run(const std::string& dir) {
    const auto run = start_trainer(dir, "first", quick_args(dir, 1), {});
    REQUIRE(wait_exit(run, 120s) == 0);
    REQUIRE(ckpt::list_checkpoints(dir + "/ckpt") ==
            std::vector<std::string>{ckpt_path(dir, 12), ckpt_path(dir, 16)});
}

// Return the warning messages a rank printed.
std::vector<std::string> warnings(const Rank& r) {
    std::vector<std::string> out;
    for (const auto& w : events(r, "warning")) {
        out.push_back(w["message"].get<std::string>());
    }
    return out;
}

bool has_warning(const Rank& r, const std::string& text) {
    for (const auto& w : warnings(r)) {
        if (w == text) {
            return true;
        }
    }
    return false;
}

bool verifies(const std::string& path) {
    bool legacy = true;
    return ckpt::read_checkpoint_file(path, legacy).ok() && !legacy;
}

}  // namespace

TEST_CASE("temporary files of interrupted checkpoint writes are removed at start, others kept",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    std::filesystem::create_directories(dir + "/ckpt");
    const auto temp = dir + "/ckpt/ckpt-00000008.pt.tmp.4242";
    write_file(temp, "half a checkpoint");
    for (const auto* name : {"notes.txt", "model.pt.tmp.4242", "ckpt-00000008.pt.tmp.mine"}) {
        write_file(dir + "/ckpt/" + name, "keep me");
    }
    const auto run = start_trainer(dir, "run", quick_args(dir, 1), {});
    CHECK(wait_exit(run, 120s) == 0);
    CHECK_FALSE(std::filesystem::exists(temp));
    CHECK(has_warning(run, "removed " + temp + ", left by an interrupted checkpoint write"));
    for (const auto* name : {"notes.txt", "model.pt.tmp.4242", "ckpt-00000008.pt.tmp.mine"}) {
        CHECK(read_bytes(dir + "/ckpt/" + name) == "keep me");
    }
    CHECK(events(run, "start").at(0)["resumed_from"].is_null());
}

TEST_CASE("a damaged newest checkpoint is skipped with a warning and the older one resumed",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    first_run(dir);
    std::filesystem::resize_file(ckpt_path(dir, 16), 1000);
    const auto run = start_trainer(dir, "second", quick_args(dir, 2), {});
    CHECK(wait_exit(run, 120s) == 0);
    CHECK(events(run, "start").at(0)["resumed_from"] == 12);
    const auto message = "skipped checkpoint " + ckpt_path(dir, 16) + ": truncated: header says ";
    bool warned = false;
    for (const auto& w : warnings(run)) {
        warned = warned || (w.rfind(message, 0) == 0 &&
                            w.find("; resuming from " + ckpt_path(dir, 12)) != std::string::npos);
    }
    CHECK(warned);
    CHECK(events(run, "finish").at(0)["global_step"] == 32);
}

TEST_CASE("an empty newest checkpoint is skipped and the valid ones are not pruned",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    first_run(dir);
    write_file(ckpt_path(dir, 100), "");
    auto args = quick_args(dir, 2);
    args.insert(args.end(), {"--keep-checkpoints", "1"});  // the later flag wins
    const auto run = start_trainer(dir, "second", args, {});
    CHECK(wait_exit(run, 120s) == 0);
    CHECK(events(run, "start").at(0)["resumed_from"] == 16);
    CHECK(has_warning(run, "skipped checkpoint " + ckpt_path(dir, 100) +
                               ": empty file; resuming from " + ckpt_path(dir, 16)));
    // The empty file is left alone and never counted: the checkpoint just written stays.
    CHECK(ckpt::list_checkpoints(dir + "/ckpt") ==
          std::vector<std::string>{ckpt_path(dir, 32), ckpt_path(dir, 100)});
    CHECK(verifies(ckpt_path(dir, 32)));
}

TEST_CASE("a bit flipped in the newest checkpoint is caught by its checksum",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    first_run(dir);
    auto bytes = read_bytes(ckpt_path(dir, 16));
    bytes[bytes.size() / 2] ^= 0x20;  // inside the parameters: torch alone would load it
    write_file(ckpt_path(dir, 16), bytes);
    REQUIRE_FALSE(verifies(ckpt_path(dir, 16)));
    const auto run = start_trainer(dir, "second", quick_args(dir, 2), {});
    CHECK(wait_exit(run, 120s) == 0);
    CHECK(events(run, "start").at(0)["resumed_from"] == 12);
    bool warned = false;
    for (const auto& w : warnings(run)) {
        warned =
            warned ||
            w.rfind("skipped checkpoint " + ckpt_path(dir, 16) + ": checksum mismatch", 0) == 0;
    }
    CHECK(warned);
    CHECK(events(run, "finish").at(0)["loss"].is_number());
}

TEST_CASE("no usable checkpoint stops both ranks with exit 1 instead of starting over",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    first_run(dir);
    write_file(ckpt_path(dir, 12), "");
    write_file(ckpt_path(dir, 16), "");
    const auto ranks = start_job(dir, 2, quick_args(dir, 2));
    for (const auto& r : ranks) {
        CHECK(wait_exit(r, 120s) == 1);
    }
    const auto why = dir + "/ckpt: none of its 2 checkpoints can be resumed from (" +
                     ckpt_path(dir, 16) + ": empty file; " + ckpt_path(dir, 12) +
                     ": empty file); move them away to start again from step 0";
    const auto errors0 = events(ranks[0], "error");
    REQUIRE(errors0.size() == 1);
    CHECK(errors0[0]["message"] == why);
    const auto errors1 = events(ranks[1], "error");
    REQUIRE(errors1.size() == 1);
    CHECK(errors1[0]["message"] == "rank 0: " + why);
    CHECK(events(ranks[0], "progress").empty());
    CHECK(ckpt::list_checkpoints(dir + "/ckpt").size() == 2);
}

TEST_CASE("a NaN loss stops both ranks with exit 1 and keeps the last good checkpoint",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    // Two ranks: 8 steps per epoch; checkpoints at 4 and 8.
    const auto first = start_job(dir, 2, quick_args(dir, 1));
    for (const auto& r : first) {
        REQUIRE(wait_exit(r, 120s) == 0);
    }
    const auto good = ckpt::list_checkpoints(dir + "/ckpt");
    REQUIRE(good == std::vector<std::string>{ckpt_path(dir, 4), ckpt_path(dir, 8)});
    const auto good_bytes = read_bytes(ckpt_path(dir, 8));

    const std::string logs = make_temp_dir();
    auto args = quick_args(dir, 3);
    args.insert(args.end(), {"--lr", "1e30", "--checkpoint-every", "1"});
    const auto second = start_job(logs, 2, args);
    for (const auto& r : second) {
        CHECK(wait_exit(r, 120s) == 1);
    }
    for (const auto& r : second) {
        const auto errors = events(r, "error");
        REQUIRE(errors.size() == 1);
        const auto message = errors[0]["message"].get<std::string>();
        CHECK(message.rfind("loss is not finite (", 0) == 0);
        CHECK(message.find("(--nan-patience 3): training diverged") != std::string::npos);
        CHECK(events(r, "finish").empty());
    }
    CHECK(events(second[0], "start").at(0)["resumed_from"] == 8);
    CHECK(ckpt::list_checkpoints(dir + "/ckpt") == good);
    CHECK(read_bytes(ckpt_path(dir, 8)) == good_bytes);
}

TEST_CASE("SIGTERM while the loss is NaN exits 143 without writing a checkpoint",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    first_run(dir);
    const auto good = ckpt::list_checkpoints(dir + "/ckpt");
    const auto good_bytes = read_bytes(ckpt_path(dir, 16));
    auto args = quick_args(dir, 100000);  // never ends on its own
    args.insert(args.end(), {"--lr", "1e30", "--nan-patience", "1000000000"});
    const auto run = start_trainer(dir, "second", args, {});
    REQUIRE(wait_for_output(run, "stops if it stays NaN or infinite", 60s));
    ::kill(run.pid, SIGTERM);
    CHECK(wait_exit(run, 60s) == 143);
    CHECK(events(run, "checkpoint").empty());
    const auto failed = events(run, "checkpoint_failed");
    REQUIRE_FALSE(failed.empty());
    CHECK(failed.back()["message"] == "the loss is not finite");
    CHECK(failed.back()["last_checkpoint_step"] == 16);  // the one it resumed from
    CHECK(ckpt::list_checkpoints(dir + "/ckpt") == good);
    CHECK(read_bytes(ckpt_path(dir, 16)) == good_bytes);
}

TEST_CASE("a checkpoint that cannot be written is an event naming the newest one written",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    first_run(dir);
    // A directory where the checkpoint of step 24 goes: its write fails, as on a full disk.
    std::filesystem::create_directories(ckpt_path(dir, 24));
    const auto run = start_trainer(dir, "second", quick_args(dir, 2), {});
    REQUIRE(wait_exit(run, 120s) == 0);
    const auto failed = events(run, "checkpoint_failed");
    REQUIRE(failed.size() == 1);
    CHECK(failed[0]["global_step"] == 24);
    CHECK(failed[0]["last_checkpoint_step"] == 20);
    CHECK_FALSE(failed[0]["message"].get<std::string>().empty());
    // The next one is written, and names itself the newest.
    bool wrote_28 = false;
    for (const auto& c : events(run, "checkpoint")) {
        wrote_28 = wrote_28 || c["global_step"] == 28;
    }
    CHECK(wrote_28);
}
