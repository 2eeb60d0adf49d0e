#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "trainer/checkpoint/files.h"

using namespace kftrain::trainer::checkpoint;

TEST_CASE("checkpoint names sort by step and parse back", "[trainer][checkpoint]") {
    CHECK(checkpoint_name(120) == "ckpt-00000120.pt");
    CHECK(checkpoint_step("ckpt-00000120.pt") == 120);
    CHECK_FALSE(checkpoint_step("ckpt-00000120.pt.tmp.5"));
    CHECK_FALSE(checkpoint_step("model.pt"));
    CHECK_FALSE(checkpoint_step("ckpt-.pt"));
}

TEST_CASE("rotate_checkpoints keeps the newest K", "[trainer][checkpoint]") {
    TempDir dir;
    for (int64_t step : {5, 100, 20, 7}) {
        write_text(dir.file(checkpoint_name(step)), "x");
    }
    write_text(dir.file("notes.txt"), "kept");
    const auto deleted = rotate_checkpoints(dir.path().string(), 2);
    CHECK(deleted.size() == 2);
    CHECK(list_checkpoints(dir.path().string()) ==
          std::vector<std::string>{dir.file(checkpoint_name(20)), dir.file(checkpoint_name(100))});
    CHECK(newest_checkpoint(dir.path().string()) == dir.file(checkpoint_name(100)));
    CHECK(std::filesystem::exists(dir.file("notes.txt")));
}

TEST_CASE("newest_checkpoint of an empty or missing directory is none", "[trainer][checkpoint]") {
    TempDir dir;
    CHECK_FALSE(newest_checkpoint(dir.path().string()));
    CHECK_FALSE(newest_checkpoint(dir.file("missing")));
}
