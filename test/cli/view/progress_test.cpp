#include "cli/view/progress.h"

#include <catch2/catch.hpp>

#include "progress/progress_line.h"
#include "progress/trainer_status.h"
#include "util/time_text.h"

using namespace kftrain;
using namespace kftrain::cli;

namespace {

const char* k_progress_line =
    R"({"event":"progress","rank":0,"world_size":4,"time":"2024-05-01T10:03:12.000Z",)"
    R"("epoch":2,"epochs":3,"step":120,"steps_per_epoch":469,"global_step":589,)"
    R"("loss":0.31214,"accuracy":0.912,"samples_per_sec":1234.4,"lr":0.01,)"
    R"("elapsed_s":192.0,"eta_s":100.0})";

}  // namespace

TEST_CASE("a progress line formats with epoch, loss, accuracy, speed and ETA",
          "[cluster][progress]") {
    auto p = progress::parse_progress_line(k_progress_line);
    REQUIRE(p);
    CHECK(view::format_progress(*p) ==
          "epoch 2/3 step 120/469 loss 0.3121 acc 91.2% 1234 samples/s ETA 1m40s");
}

TEST_CASE("every trainer event formats readably", "[cluster][progress]") {
    struct Case {
        const char* name;
        const char* line;
        const char* shown;
    };
    const Case cases[] = {
        {"start",
         R"({"event":"start","rank":0,"world_size":2,"time":"t","model":"mnist_cnn",)"
         R"("dataset":"mnist","epochs":3,"batch_size":64,"global_batch_size":128,"lr":0.01,)"
         R"("backend":"nccl","device":"cuda:1","memory_format":"contiguous","threads":2,)"
         R"("bucket_bytes":2621440,"samples":60000,"steps_per_epoch":469,"resumed_from":null})",
         "start: model mnist_cnn dataset mnist 3 epochs batch 64 (global 128) lr 0.01 backend "
         "nccl device cuda:1 contiguous 2 threads buckets 2.50 MiB 60000 samples 469 "
         "steps/epoch"},
        // The trainer writes the step it resumed from as a number: a user must see it.
        {"start after a resume",
         R"({"event":"start","rank":0,"world_size":1,"time":"t","model":"mlp",)"
         R"("dataset":"synthetic","epochs":8,"samples":4096,"resumed_from":938})",
         "start: model mlp dataset synthetic 8 epochs 4096 samples, resumed from step 938"},
        {"epoch",
         R"({"event":"epoch","rank":0,"world_size":2,"time":"t","epoch":1,"epochs":3,)"
         R"("loss":0.5,"accuracy":0.85,"samples_per_sec":900,"epoch_time_s":65,)"
         R"("elapsed_s":65,"eta_s":130})",
         "epoch 1/3 done: loss 0.5000 acc 85.0% 900 samples/s took 1m5s ETA 2m10s"},
        {"eval",
         R"({"event":"eval","rank":0,"world_size":2,"time":"t","epoch":1,"loss":0.4,)"
         R"("accuracy":0.9,"samples":10000})",
         "eval epoch 1: loss 0.4000 acc 90.0% on 10000 samples"},
        {"checkpoint",
         R"({"event":"checkpoint","rank":0,"world_size":2,"time":"t","path":"/ckpt/e1.pt",)"
         R"("epoch":1,"global_step":469})",
         "checkpoint epoch 1 step 469: /ckpt/e1.pt"},
        {"finish",
         R"({"event":"finish","rank":0,"world_size":2,"time":"t","epochs":3,)"
         R"("global_step":1407,"loss":0.1,"accuracy":0.97,"elapsed_s":200,"samples_per_sec":950})",
         "finished: 3 epochs 1407 steps loss 0.1000 acc 97.0% 950 samples/s in 3m20s"},
        {"warning",
         R"({"event":"warning","rank":1,"world_size":2,"time":"t","message":"slow peer"})",
         "warning: slow peer"},
        {"error", R"({"event":"error","rank":1,"world_size":2,"time":"t","message":"peer 2 gone"})",
         "error: peer 2 gone"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            auto shown = view::format_trainer_line(c.line);
            REQUIRE(shown);
            CHECK(*shown == c.shown);
        }
    }
}

TEST_CASE("numbers out of range in a program's progress line are left out, not cast",
          "[cluster][progress]") {
    // A custom command prints what it likes: 1e308 as an epoch is no int.
    auto p = progress::parse_progress_line(
        R"({"event":"progress","epoch":1e308,"epochs":2.5,"step":18446744073709551615,)"
        R"("steps_per_epoch":-1e30,"loss":0.5,"eta_s":1e300})");
    REQUIRE(p);
    CHECK_FALSE(p->epoch);
    CHECK_FALSE(p->epochs);
    CHECK_FALSE(p->step);
    CHECK_FALSE(p->steps_per_epoch);
    CHECK(view::format_progress(*p) == "loss 0.5000 ETA >1000y");
    auto whole = progress::parse_progress_line(R"({"event":"progress","epoch":3.0,"epochs":4})");
    REQUIRE(whole);
    CHECK(*whole->epoch == 3);
}

TEST_CASE("lines that are not trainer JSON are not parsed", "[cluster][progress]") {
    for (const char* line :
         {"Epoch 1 done", "", "{not json", "{\"a\":1}", "{\"event\":3}", "[1,2]"}) {
        CAPTURE(line);
        CHECK_FALSE(progress::parse_progress_line(line));
        CHECK_FALSE(view::format_trainer_line(line));
    }
}

TEST_CASE("timestamps parse with fractions and offsets", "[cluster][progress]") {
    auto base = kftrain::util::parse_timestamp("2024-05-01T10:00:00Z");
    REQUIRE(base);
    CHECK(kftrain::util::format_timestamp(*base) == "2024-05-01T10:00:00Z");
    CHECK(*kftrain::util::parse_timestamp("2024-05-01T10:00:00.123456Z") == *base);
    CHECK(*kftrain::util::parse_timestamp("2024-05-01T12:00:00+02:00") == *base);
    CHECK_FALSE(kftrain::util::parse_timestamp("yesterday"));
    CHECK_FALSE(kftrain::util::parse_timestamp("2024-05-01T10:00:00"));
}

TEST_CASE("a program's progress line may add a percentage and metrics of its own",
          "[cluster][progress]") {
    auto p = progress::parse_progress_line(
        R"({"event":"progress","time":"2026-11-26T10:03:12.345Z","epoch":2,"epochs":5,)"
        R"("loss":0.31,"percent":32.5,"metrics":{"grad_norm":1.5,"phase":"warmup","bad":[1],)"
        R"("":"x"}})");
    REQUIRE(p);
    CHECK(p->percent == Approx(32.5));
    CHECK(p->metrics == std::vector<std::pair<std::string, std::string>>{{"grad_norm", "1.5"},
                                                                         {"phase", "warmup"}});
    CHECK(view::format_progress(*p) == "32.5% epoch 2/5 loss 0.3100 grad_norm 1.5 phase warmup");
    // A percentage outside 0..100 is left out; a line of a later format version is skipped.
    CHECK_FALSE(progress::parse_progress_line(R"({"event":"progress","percent":250})")->percent);
    CHECK_FALSE(progress::parse_progress_line(R"({"event":"progress","v":2,"percent":5})"));
    CHECK(progress::parse_progress_line(R"({"event":"progress","v":1,"percent":5})"));
}

TEST_CASE("posted metrics out of range are left out, and huge figures stay short",
          "[cluster][progress]") {
    using nlohmann::json;
    const json posted = {{"lastUpdatedTime", "2026-11-28T10:00:00Z"},
                         {"progressPercentage", 250},
                         {"metrics",
                          {{{"name", "epoch"}, {"value", "-2147483648"}},
                           {{"name", "epochs"}, {"value", "-3"}},
                           {{"name", "step"}, {"value", "1e300"}},
                           {{"name", "accuracy"}, {"value", std::string(300, '9')}},
                           {{"name", "loss"}, {"value", "1e300"}},
                           {{"name", "samples_per_sec"}, {"value", "-5"}}}}};
    auto p = progress::trainer_status_progress(posted);
    REQUIRE(p);
    CHECK_FALSE(p->percent);
    CHECK_FALSE(p->epoch);
    CHECK_FALSE(p->epochs);
    CHECK_FALSE(p->step);
    CHECK_FALSE(p->accuracy);
    CHECK_FALSE(p->samples_per_sec);
    CHECK(view::format_progress(*p) == "loss 1e+300");
    // The same from a progress line: a negative epoch is no epoch.
    auto line = progress::parse_progress_line(
        R"({"event":"progress","epoch":-2147483648,"epochs":-3,"accuracy":7,"loss":2})");
    REQUIRE(line);
    CHECK(view::format_progress(*line) == "loss 2.0000");
}

TEST_CASE("a metric's name and value reach the terminal escaped", "[cluster][progress]") {
    using nlohmann::json;
    // U+202E turns the rest of the line around; ESC ] 0 sets the window title.
    auto p = progress::trainer_status_progress(
        {{"metrics", {{{"name", "acc\xe2\x80\xaeuracy"}, {"value", "\x1b]0;owned\x07"}}}}});
    REQUIRE(p);
    CHECK(view::format_progress(*p) == "acc\\u202euracy \\x1b]0;owned\\x07");
}

TEST_CASE("a stale percentage is not shown beside a newer epoch", "[cluster][progress]") {
    auto posted = progress::trainer_status_progress(
        {{"lastUpdatedTime", "2026-11-28T10:00:00Z"}, {"progressPercentage", 31}});
    auto line = progress::parse_progress_line(
        R"({"event":"progress","time":"2026-11-28T10:05:00Z","epoch":5,"epochs":8,"loss":0.2})");
    REQUIRE(line);
    auto merged = progress::merge_progress(posted, line);
    REQUIRE(merged);
    CHECK(view::format_progress(*merged) == "epoch 5/8 loss 0.2000");
    // A post seconds older is the same moment: its percentage is shown.
    auto recent = progress::parse_progress_line(
        R"({"event":"progress","time":"2026-11-28T10:00:04Z","epoch":3,"epochs":8,"loss":0.2})");
    REQUIRE(recent);
    CHECK(view::format_progress(*progress::merge_progress(posted, recent)) ==
          "31% epoch 3/8 loss 0.2000");
}

TEST_CASE("a checkpoint that was not written reads as such, with where a resume starts",
          "[cluster][progress]") {
    auto failed = progress::parse_progress_line(
        R"({"event":"checkpoint_failed","epoch":3,"global_step":1407,)"
        R"("message":"No space left on device","last_checkpoint_step":938})");
    REQUIRE(failed);
    CHECK(view::format_progress(*failed) ==
          "checkpoint epoch 3 step 1407 NOT written: No space left on device; a resume starts "
          "from step 938");
    auto report = progress::checkpoint_report(*failed);
    REQUIRE(report);
    CHECK(report->failed);
    CHECK(report->step == 938);
    auto none = progress::checkpoint_report(*progress::parse_progress_line(
        R"({"event":"checkpoint_failed","global_step":20,"message":"x","last_checkpoint_step":null})"));
    REQUIRE(none);
    CHECK(view::format_checkpoint(*none) ==
          "step 20 NOT written: x; none is written: a resume starts over");
    // The last checkpoint event of a log, whichever it is.
    CHECK(progress::last_checkpoint({R"({"event":"checkpoint","global_step":5,"path":"/c/5"})",
                                     R"({"event":"progress","global_step":9})"})
              ->path == "/c/5");
}
