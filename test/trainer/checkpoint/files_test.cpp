#include "trainer/checkpoint/files.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/files.h"
#include "trainer/checkpoint/frame.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer::checkpoint;
using kftrain::util::Status;

namespace {

// A loader that accepts payloads holding "ok" and records what it was given.
struct FakeLoader {
    std::vector<std::string> tried;
    LoadPayload fn() {
        return [this](const std::string& path, const std::string& payload) -> Status {
            tried.push_back(path);
            if (payload.find("ok") != std::string::npos) {
                return kftrain::util::Unit{};
            }
            return kftrain::util::Error{path + ": not a checkpoint of this model and optimizer"};
        };
    }
};

}  // namespace

TEST_CASE("a checkpoint directory is made, and one that cannot hold a file is refused",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    const auto made = dir + "/runs/a/ckpt";
    REQUIRE(check_writable_dir(made).ok());
    CHECK(std::filesystem::is_directory(made));
    CHECK(std::filesystem::is_empty(made));  // the probe file is gone

    write_file(dir + "/afile", "x");
    const auto file = check_writable_dir(dir + "/afile");
    REQUIRE_FALSE(file.ok());
    CHECK(file.error() == "--checkpoint-dir " + dir + "/afile: is not a directory");
    const auto under = check_writable_dir(dir + "/afile/ckpt");
    REQUIRE_FALSE(under.ok());
    CHECK(under.error() ==
          "--checkpoint-dir " + dir + "/afile/ckpt: cannot create it: Not a directory");
}

TEST_CASE("checkpoint names sort by step and parse back", "[trainer][checkpoint]") {
    CHECK(checkpoint_name(120) == "ckpt-00000120.pt");
    CHECK(checkpoint_step("ckpt-00000120.pt") == 120);
    CHECK_FALSE(checkpoint_step("ckpt-00000120.pt.tmp.5"));
    CHECK_FALSE(checkpoint_step("model.pt"));
    CHECK_FALSE(checkpoint_step("ckpt-.pt"));
    CHECK_FALSE(checkpoint_step("ckpt-99999999999999999999999.pt"));
}

TEST_CASE("only the temporary files of checkpoint writes count as checkpoint temps",
          "[trainer][checkpoint]") {
    CHECK(is_checkpoint_temp("ckpt-00000120.pt.tmp.5"));
    CHECK(is_checkpoint_temp("ckpt-00000120.pt.tmp.123456"));
    CHECK_FALSE(is_checkpoint_temp("ckpt-00000120.pt"));
    CHECK_FALSE(is_checkpoint_temp("ckpt-00000120.pt.tmp."));
    CHECK_FALSE(is_checkpoint_temp("ckpt-00000120.pt.tmp.5x"));
    CHECK_FALSE(is_checkpoint_temp("model.pt.tmp.5"));
    CHECK_FALSE(is_checkpoint_temp("ckpt-abc.pt.tmp.5"));
    CHECK_FALSE(is_checkpoint_temp("notes.tmp.5"));
}

TEST_CASE("remove_checkpoint_temps deletes interrupted writes and nothing else",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    for (const auto* name :
         {"ckpt-00000004.pt.tmp.77", "ckpt-00000008.pt.tmp.1234", "ckpt-00000004.pt", "notes.txt",
          "model.pt.tmp.77", "ckpt-00000004.pt.tmp.old"}) {
        write_file(dir + "/" + name, "x");
    }
    std::filesystem::create_directory(dir + "/ckpt-00000009.pt.tmp.3");
    CHECK(remove_checkpoint_temps(dir) ==
          std::vector<std::string>{dir + "/ckpt-00000004.pt.tmp.77",
                                   dir + "/ckpt-00000008.pt.tmp.1234"});
    for (const auto* name : {"ckpt-00000004.pt", "notes.txt", "model.pt.tmp.77",
                             "ckpt-00000004.pt.tmp.old", "ckpt-00000009.pt.tmp.3"}) {
        CHECK(std::filesystem::exists(dir + "/" + name));
    }
    CHECK(remove_checkpoint_temps(dir + "/missing").empty());
}

TEST_CASE("rotate_checkpoints keeps the newest K", "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    for (int64_t step : {5, 100, 20, 7}) {
        write_file(dir + "/" + checkpoint_name(step), "x");
    }
    write_file(dir + "/notes.txt", "kept");
    const auto deleted = rotate_checkpoints(dir, 2, 100);
    CHECK(deleted.size() == 2);
    CHECK(list_checkpoints(dir) == std::vector<std::string>{dir + "/" + checkpoint_name(20),
                                                            dir + "/" + checkpoint_name(100)});
    CHECK(newest_checkpoint(dir) == dir + "/" + checkpoint_name(100));
    CHECK(std::filesystem::exists(dir + "/notes.txt"));
}

TEST_CASE("rotate_checkpoints never counts checkpoints newer than the one just written",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    for (int64_t step : {12, 14, 16}) {
        write_file(dir + "/" + checkpoint_name(step), "x");
    }
    // 16 was skipped as damaged at resume; 14 was just written: keep 1 must keep 14.
    CHECK(rotate_checkpoints(dir, 1, 14) ==
          std::vector<std::string>{dir + "/" + checkpoint_name(12)});
    CHECK(list_checkpoints(dir) == std::vector<std::string>{dir + "/" + checkpoint_name(14),
                                                            dir + "/" + checkpoint_name(16)});
}

TEST_CASE("newest_checkpoint of an empty or missing directory is none", "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    CHECK_FALSE(newest_checkpoint(dir));
    CHECK_FALSE(newest_checkpoint(dir + "/missing"));
}

TEST_CASE("choose_checkpoint skips a damaged or empty newest checkpoint and uses the next",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/" + checkpoint_name(4), encode_frame("ok 4"));
    write_file(dir + "/" + checkpoint_name(8), encode_frame("ok 8"));
    auto flipped = encode_frame("ok 12");
    flipped[k_frame_header_size + 1] ^= 0x01;
    write_file(dir + "/" + checkpoint_name(12), flipped);
    write_file(dir + "/" + checkpoint_name(16), "");
    FakeLoader loader;
    const auto choice = choose_checkpoint(dir, loader.fn());
    REQUIRE(choice.ok());
    CHECK(choice->path == dir + "/" + checkpoint_name(8));
    CHECK(choice->payload == "ok 8");
    CHECK_FALSE(choice->legacy);
    REQUIRE(choice->skipped.size() == 2);
    CHECK(choice->skipped[0].path == dir + "/" + checkpoint_name(16));
    CHECK(choice->skipped[0].reason == dir + "/" + checkpoint_name(16) + ": empty file");
    CHECK(choice->skipped[1].path == dir + "/" + checkpoint_name(12));
    CHECK(choice->skipped[1].reason.rfind(dir + "/" + checkpoint_name(12) + ": checksum mismatch",
                                          0) == 0);
    // Damaged files never reach the loader.
    CHECK(loader.tried == std::vector<std::string>{dir + "/" + checkpoint_name(8)});
}

TEST_CASE("choose_checkpoint skips a checkpoint the loader refuses", "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/" + checkpoint_name(4), encode_frame("ok 4"));
    write_file(dir + "/" + checkpoint_name(8), encode_frame("other model"));
    FakeLoader loader;
    const auto choice = choose_checkpoint(dir, loader.fn());
    REQUIRE(choice.ok());
    CHECK(choice->path == dir + "/" + checkpoint_name(4));
    REQUIRE(choice->skipped.size() == 1);
    CHECK(choice->skipped[0].reason ==
          dir + "/" + checkpoint_name(8) + ": not a checkpoint of this model and optimizer");
}

TEST_CASE("choose_checkpoint accepts an unframed torch archive as a legacy checkpoint",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/" + checkpoint_name(4), std::string("PK\x03\x04ok", 6));
    FakeLoader loader;
    const auto choice = choose_checkpoint(dir, loader.fn());
    REQUIRE(choice.ok());
    CHECK(choice->path == dir + "/" + checkpoint_name(4));
    CHECK(choice->legacy);
    CHECK(choice->payload == std::string("PK\x03\x04ok", 6));
}

TEST_CASE("choose_checkpoint of a directory without checkpoints starts from scratch",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/notes.txt", "x");
    FakeLoader loader;
    for (const auto& d : {dir, dir + "/missing"}) {
        const auto choice = choose_checkpoint(d, loader.fn());
        REQUIRE(choice.ok());
        CHECK(choice->path.empty());
        CHECK(choice->skipped.empty());
    }
    CHECK(loader.tried.empty());
}

TEST_CASE("choose_checkpoint refuses to start over when no checkpoint is usable",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/" + checkpoint_name(4), "garbage");
    write_file(dir + "/" + checkpoint_name(8), "");
    FakeLoader loader;
    const auto choice = choose_checkpoint(dir, loader.fn());
    REQUIRE_FALSE(choice.ok());
    CHECK(choice.error() ==
          dir + ": none of its 2 checkpoints can be resumed from (" + dir + "/" +
              checkpoint_name(8) + ": empty file; " + dir + "/" + checkpoint_name(4) +
              ": not a kftrain checkpoint (no frame magic)); move them away to start again from "
              "step 0");
}
