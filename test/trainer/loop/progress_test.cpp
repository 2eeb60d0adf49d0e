#include "trainer/loop/progress.h"

#include <catch2/catch.hpp>
#include <sstream>

using namespace kftrain::trainer;

namespace {

std::chrono::system_clock::time_point fixed_time() {
    // 2026-11-22T04:10:00.123Z
    return std::chrono::system_clock::time_point(std::chrono::milliseconds(1795320600123LL));
}

}  // namespace

TEST_CASE("iso_time_utc prints UTC with milliseconds", "[trainer][progress]") {
    CHECK(iso_time_utc(fixed_time()) == "2026-11-22T04:10:00.123Z");
}

TEST_CASE("json progress lines start with event, rank, world_size and time",
          "[trainer][progress]") {
    const auto line =
        format_event_json("eval", 0, 2, "2026-11-22T04:10:00.123Z",
                          {{"epoch", 1}, {"loss", 0.5}, {"accuracy", 0.75}, {"samples", 100}});
    CHECK(line == R"({"event":"eval","rank":0,"world_size":2,"time":"2026-11-22T04:10:00.123Z",)"
                  R"("epoch":1,"loss":0.5,"accuracy":0.75,"samples":100})");
}

TEST_CASE("text progress lines hold the same facts", "[trainer][progress]") {
    const auto line = format_event_text("progress", 0, 2,
                                        {{"epoch", 1},
                                         {"epochs", 3},
                                         {"step", 50},
                                         {"steps_per_epoch", 94},
                                         {"global_step", 50},
                                         {"loss", 0.42317},
                                         {"accuracy", 0.875},
                                         {"samples_per_sec", 1234.56},
                                         {"lr", 0.01},
                                         {"elapsed_s", 12.34},
                                         {"eta_s", 40.06}});
    CHECK(line ==
          "[rank 0/2] epoch 1/3 step 50/94 (global 50): loss 0.4232 accuracy 87.50% 1234.6 "
          "samples/s lr 0.01 elapsed 12.3s eta 40.1s");
}

TEST_CASE("ranks other than 0 print only start, warning and error", "[trainer][progress]") {
    std::ostringstream out, err;
    ProgressLog log(out, err, true, 1, 2, fixed_time);
    log.emit("progress", {{"loss", 1.0}});
    log.emit("start", {{"model", "mlp"}});
    log.emit("error", {{"message", "boom"}});
    CHECK(
        out.str() ==
        R"({"event":"start","rank":1,"world_size":2,"time":"2026-11-22T04:10:00.123Z","model":"mlp"})"
        "\n"
        R"({"event":"error","rank":1,"world_size":2,"time":"2026-11-22T04:10:00.123Z","message":"boom"})"
        "\n");
    CHECK(err.str().empty());
}

TEST_CASE("text errors go to stderr", "[trainer][progress]") {
    std::ostringstream out, err;
    ProgressLog log(out, err, false, 0, 1, fixed_time);
    log.emit("error", {{"message", "cannot connect"}});
    CHECK(out.str().empty());
    CHECK(err.str() == "[rank 0/1] error: cannot connect\n");
}

TEST_CASE("start lines show resumed_from as null or a step", "[trainer][progress]") {
    const auto fresh = format_event_json("start", 0, 1, "t", {{"resumed_from", nullptr}});
    CHECK(fresh.find(R"("resumed_from":null)") != std::string::npos);
    const auto resumed = format_event_text("start", 0, 1, {{"resumed_from", 40}});
    CHECK(resumed.find("resumed from step 40") != std::string::npos);
}

TEST_CASE("text start lines name the device and the memory format", "[trainer][progress]") {
    const auto line = format_event_text("start", 0, 1, {{"backend", "nccl"}, {"device", "cuda:1"}});
    CHECK(line.find("backend nccl device cuda:1 threads") != std::string::npos);
    const auto cpu = format_event_text(
        "start", 0, 1, {{"device", "cpu"}, {"memory_format", "channels-last"}, {"threads", 2}});
    CHECK(cpu.find("device cpu channels-last threads 2") != std::string::npos);
}
