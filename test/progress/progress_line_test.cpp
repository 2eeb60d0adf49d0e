// The one progress parser (progress/progress_line.h): what status, logs, diagnose and the
// measurement read of a program's progress lines.
#include "progress/progress_line.h"

#include <catch2/catch.hpp>

#include "diagnose/log_signals.h"
#include "progress/progress_reader.h"

using namespace kftrain;

namespace {

const char* k_parsed_progress_line =
    R"({"event":"progress","rank":0,"world_size":4,"time":"2024-05-01T10:03:12.000Z",)"
    R"("epoch":2,"epochs":3,"step":120,"steps_per_epoch":469,"global_step":589,)"
    R"("loss":0.31214,"accuracy":0.912,"samples_per_sec":1234.4,"lr":0.01,)"
    R"("elapsed_s":192.0,"eta_s":100.0})";

// Return what diagnose reads of one log line of a replica.
diagnose::LogFinding read_one_line(const std::string& text) {
    diagnose::LogEvidence line;
    line.text = text;
    return diagnose::read_log({line});
}

}  // namespace

TEST_CASE("a trainer progress line reads into Progress", "[cluster][progress]") {
    auto p = progress::parse_progress_line(k_parsed_progress_line);
    REQUIRE(p);
    CHECK(p->event == "progress");
    CHECK(*p->epoch == 2);
    CHECK(*p->steps_per_epoch == 469);
    CHECK(*p->global_step == 589);
    CHECK(*p->loss == Approx(0.31214));
    CHECK(p->time == "2024-05-01T10:03:12.000Z");
}

TEST_CASE("a progress line nested past 64 levels, or with non-text times, is not read as one",
          "[cluster][progress]") {
    // 20 KB, well under a line's 64 KiB: printing or converting it would recurse 10000 deep.
    const std::string deep = R"({"event":"progress","global_step":1,"time":)" +
                             std::string(10000, '[') + std::string(10000, ']') + "}";
    CHECK_FALSE(progress::parse_progress_line(deep));
    auto odd = progress::parse_progress_line(
        R"({"event":"progress","global_step":1,"time":[[1]],"message":{"a":1},"path":7})");
    REQUIRE(odd);
    CHECK(odd->time.empty());
    CHECK(odd->message.empty());
    CHECK(odd->path.empty());
}

TEST_CASE("the last progress line skips later non-progress lines", "[cluster][progress]") {
    progress::ProgressReader reader;
    for (const char* text :
         {k_parsed_progress_line,
          R"({"event":"checkpoint","rank":0,"world_size":4,"time":"t","path":"p","epoch":2})",
          "plain text"}) {
        reader.take(text);
    }
    REQUIRE(reader.progress());
    CHECK(reader.progress()->event == "progress");
    CHECK(*reader.progress()->global_step == 589);
    progress::ProgressReader plain;
    plain.take_output("plain\ntext\n");
    CHECK_FALSE(plain.progress());
}

TEST_CASE("diagnose reads a program's error event as status reads its lines, by the one parser",
          "[progress][diagnose]") {
    // An error event, indented as some loggers print it: the parser reads it, and so does
    // diagnose.
    const std::string indented = R"(  {"event":"error","message":"no such file: /data/x"})";
    REQUIRE(progress::parse_progress_line(indented));
    CHECK(read_one_line(indented).detail == "no such file: /data/x");
    // A line of a later, incompatible format is no progress line to either of them.
    const std::string later = R"({"event":"error","v":99,"message":"from the future"})";
    CHECK_FALSE(progress::parse_progress_line(later));
    CHECK(read_one_line(later).detail != "from the future");
}
