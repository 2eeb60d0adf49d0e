// Live progress lines while a job is followed on a terminal: the pure model
// (view/live_progress.h) through a small screen emulator, and the built kftrain under a
// pseudo-terminal against the local backend's fake replica.
#include "cli/view/live_progress.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "backend/local/local_fixture.h"
#include "support/paths.h"
#include "support/pty_runner.h"
#include "support/screen.h"
#include "util/terminal.h"

using namespace kftrain;

using kftrain::cli::view::LiveProgress;
using kftrain::job::LogLine;
using kftrain::test::Screen;

namespace view = kftrain::cli::view;

namespace {

using Lines = std::vector<std::string>;

LiveProgress::Clock::time_point at(double seconds) {
    return LiveProgress::Clock::time_point{} +
           std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

LogLine line(const std::string& replica, const std::string& text) {
    return {replica, text, false};
}

std::string start_event(int rank) {
    return R"({"event":"start","rank":)" + std::to_string(rank) +
           R"(,"world_size":2,"model":"mnist_cnn","dataset":"mnist","epochs":3})";
}

std::string step_event(int epoch, int step, double loss) {
    return R"({"event":"progress","rank":0,"world_size":2,"epoch":)" + std::to_string(epoch) +
           R"(,"epochs":3,"step":)" + std::to_string(step) + R"(,"steps_per_epoch":100,"loss":)" +
           std::to_string(loss) + R"(,"accuracy":0.9,"samples_per_sec":1234.0,"eta_s":100})";
}

const char* k_finish_event =
    R"({"event":"finish","rank":0,"world_size":2,"epochs":3,"global_step":300,"loss":0.1,)"
    R"("accuracy":0.97,"elapsed_s":300,"samples_per_sec":1500})";

// Take the lines, render at `seconds` and apply the text to the screen; return the text.
std::string show(LiveProgress& live, Screen& screen, const std::vector<LogLine>& lines,
                 double seconds, size_t width = 200) {
    for (const auto& l : lines) {
        live.take(l);
    }
    std::string text = live.render(width, at(seconds));
    screen.write(text);
    return text;
}

size_t count_containing(const Lines& lines, const std::string& text) {
    size_t count = 0;
    for (const auto& l : lines) {
        count += l.find(text) != std::string::npos ? 1 : 0;
    }
    return count;
}

}  // namespace

TEST_CASE("a replica group's progress line is updated in place", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen, {line("master-0", start_event(0)), line("master-0", step_event(1, 10, 0.9))},
         0);
    CHECK(screen.lines() ==
          Lines{"master-0 | start: model mnist_cnn dataset mnist 3 epochs",
                "master-0 | epoch 1/3 step 10/100 loss 0.9000 acc 90.0% 1234 samples/s ETA 1m40s"});
    std::string redraw = show(live, screen, {line("master-0", step_event(1, 20, 0.5))}, 1);
    CHECK(redraw.find("\x1b[1A") != std::string::npos);  // up to the line, which is rewritten
    CHECK(screen.lines() ==
          Lines{"master-0 | start: model mnist_cnn dataset mnist 3 epochs",
                "master-0 | epoch 1/3 step 20/100 loss 0.5000 acc 90.0% 1234 samples/s ETA 1m40s"});
}

TEST_CASE("log lines scroll above the live block, which stays at the bottom", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen, {line("master-0", step_event(1, 10, 0.9))}, 0);
    show(live, screen,
         {line("worker-0", "loading data is slow"),
          line("master-0", R"({"event":"warning","rank":0,"message":"disk almost full"})"),
          line("master-0", step_event(1, 30, 0.4))},
         1);
    CHECK(screen.lines() ==
          Lines{"worker-0 | loading data is slow", "master-0 | warning: disk almost full",
                "master-0 | epoch 1/3 step 30/100 loss 0.4000 acc 90.0% 1234 samples/s ETA 1m40s"});
}

TEST_CASE("a tqdm bar's drawings update the live line, the program's other lines scroll",
          "[progress]") {
    LiveProgress live(8);
    Screen screen;
    auto drawing = [](int done) {
        return "Epoch 1/2:  " + std::to_string(done * 10) + "%|###   | " + std::to_string(done) +
               "/10 [00:01<00:02, 5.00it/s, loss=0.5]";
    };
    show(live, screen,
         {line("master-0", "loading data"), line("master-0", drawing(1)),
          line("master-0", drawing(2) + "\r" + drawing(3))},
         0);
    CHECK(screen.lines() == Lines{"master-0 | loading data",
                                  "master-0 | 15% epoch 1/2 step 3/10 loss 0.5000 5.00 steps/s"});
}

TEST_CASE("an epoch summary scrolls and closes the epoch on the live line", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen,
         {line("master-0", step_event(1, 90, 0.6)),
          line("master-0",
               R"({"event":"epoch","rank":0,"epoch":1,"epochs":3,"loss":0.5,"accuracy":0.85,)"
               R"("samples_per_sec":900,"epoch_time_s":65,"elapsed_s":65,"eta_s":130})")},
         0);
    CHECK(screen.lines() ==
          Lines{"master-0 | epoch 1/3 done: loss 0.5000 acc 85.0% 900 samples/s took 1m5s ETA "
                "2m10s",
                "master-0 | epoch 1/3 step 100/100 loss 0.5000 acc 85.0% 900 samples/s ETA 2m10s"});
}

TEST_CASE("when the job ends the live block is left as final lines", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen, {line("master-0", step_event(3, 99, 0.2))}, 0);
    live.take(line("master-0", k_finish_event));
    std::string last = live.finish(200);
    screen.write(last);
    CHECK(live.finish(200).empty());  // once
    screen.write("job mnist Succeeded\n");
    CHECK(screen.lines() ==
          Lines{"master-0 | epoch 3/3 step 100/100 loss 0.1000 acc 97.0% 1500 samples/s finished "
                "in 5m0s",
                "job mnist Succeeded"});
}

TEST_CASE("a live line longer than the terminal is cut, a log line is not", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    const std::string long_print(150, 'x');
    std::string text =
        show(live, screen, {line("master-0", step_event(1, 10, 0.9)), line("worker-0", long_print)},
             0, 30);
    CHECK(screen.lines() == Lines{"worker-0 | " + long_print, "master-0 | epoch 1/3 step 10/1"});
    CHECK(live.block().front().size() > 30);  // uncut, as it would be on a wider terminal
}

TEST_CASE("cutting to a width keeps whole UTF-8 characters and blanks control characters",
          "[progress]") {
    CHECK(view::cut_to_width("épóch 1", 3) == "épó");
    CHECK(view::cut_to_width("a\tb\x1b[2J", 4) == "a b ");
    CHECK(view::cut_to_width("short", 80) == "short");
    CHECK(view::cut_to_width("any", 0).empty());
}

TEST_CASE("two replica groups get a line each, in the order they first reported", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen,
         {line("master-0", step_event(1, 10, 0.9)), line("worker-1", step_event(1, 11, 0.8))}, 0);
    std::string redraw = show(live, screen, {line("worker-3", step_event(1, 12, 0.7))}, 1);
    CHECK(redraw.find("\x1b[2A") != std::string::npos);
    CHECK(screen.lines() ==
          Lines{"master-0 | epoch 1/3 step 10/100 loss 0.9000 acc 90.0% 1234 samples/s ETA 1m40s",
                "worker-3 | epoch 1/3 step 12/100 loss 0.7000 acc 90.0% 1234 samples/s ETA 1m40s"});
}

TEST_CASE("a group that restarts starts its line again and counts the restart", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen, {line("master-0", start_event(0)), line("master-0", step_event(1, 50, 0.6))},
         0);
    show(live, screen,
         {line("master-0", "kftrain: master-0 exited with code 1; restarting"),
          line("master-0", start_event(0))},
         1);
    CHECK(screen.lines().back() == "master-0 | restarted; waiting for progress (restart 1)");
    show(live, screen, {line("master-0", step_event(2, 5, 0.4))}, 2);
    CHECK(screen.lines() ==
          Lines{"master-0 | start: model mnist_cnn dataset mnist 3 epochs",
                "master-0 | kftrain: master-0 exited with code 1; restarting",
                "master-0 | start: model mnist_cnn dataset mnist 3 epochs",
                "master-0 | epoch 2/3 step 5/100 loss 0.4000 acc 90.0% 1234 samples/s ETA 1m40s "
                "(restart 1)"});
}

TEST_CASE("the live block is redrawn only when it changed, at most five times a second",
          "[progress]") {
    LiveProgress live(8);
    Screen screen;
    CHECK_FALSE(show(live, screen, {line("master-0", step_event(1, 1, 0.9))}, 0).empty());
    CHECK(show(live, screen, {line("master-0", step_event(1, 2, 0.8))}, 0.1).empty());
    CHECK(screen.lines().back().find("step 1/100") != std::string::npos);
    CHECK(show(live, screen, {}, 0.25).find("step 2/100") != std::string::npos);
    CHECK(show(live, screen, {}, 1).empty());  // nothing changed
}

TEST_CASE("a notice is written where the block stood and the block comes back below it",
          "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen, {line("master-0", step_event(1, 10, 0.9))}, 0);
    screen.write(live.clear());
    screen.write("kftrain: worker-1: waiting for it to start (Pending)\n");
    screen.write(live.render(200, at(0.01)));  // at once: the block must not stay away
    CHECK(screen.lines() ==
          Lines{"kftrain: worker-1: waiting for it to start (Pending)",
                "master-0 | epoch 1/3 step 10/100 loss 0.9000 acc 90.0% 1234 samples/s ETA 1m40s"});
}

TEST_CASE("progress lines with --timestamps are live lines too", "[progress]") {
    LiveProgress live(8);
    Screen screen;
    show(live, screen,
         {line("master-0", "2026-05-01T10:00:00.000000000Z " + step_event(1, 10, 0.9))}, 0);
    CHECK(screen.lines() ==
          Lines{"master-0 | epoch 1/3 step 10/100 loss 0.9000 acc 90.0% 1234 samples/s ETA 1m40s"});
}

TEST_CASE("replica groups are replica names without their index", "[progress]") {
    CHECK(view::replica_group("master-0") == "master");
    CHECK(view::replica_group("worker-12") == "worker");
    CHECK(view::replica_group("node-1") == "node");
    CHECK(view::replica_group("dataset-initializer") == "dataset-initializer");
    CHECK(view::replica_group("worker-") == "worker-");
}

TEST_CASE("the terminal width comes from the terminal, else COLUMNS, else 80", "[progress]") {
    CHECK(util::choose_width(120, "100") == 120);
    CHECK(util::choose_width(0, "100") == 100);
    CHECK(util::choose_width(std::nullopt, nullptr) == 80);
    CHECK(util::choose_width(std::nullopt, "wide") == 80);
    CHECK(util::choose_width(std::nullopt, "-5") == 80);
}

// End to end: the built kftrain under a pseudo-terminal.

using kftrain::test::LocalJobs;
using kftrain::test::run_kftrain_on_pty;

namespace {

const char* k_final_line =
    "master-0 | epoch 1/1 step 3/3 loss 0.1000 acc 90.0% 100 samples/s finished";

std::string without_carriage_returns(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    return text;
}

}  // namespace

TEST_CASE("logs -f on a terminal updates one progress line in place and leaves its last figures",
          "[progress][local][cli]") {
    LocalJobs jobs;
    const std::string go = jobs.dir() + "/go";
    auto file = jobs.job_file("live-logs", 2, {"--steps", "3", "--hold-file", go});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    bool released = false;
    auto run = run_kftrain_on_pty({"logs", "live-logs", "-f", "--local"},
                                  {{"XDG_STATE_HOME", jobs.dir() + "/state"}, {"TERM", "xterm"}},
                                  100, [&](const std::string& out) {
                                      // Every step shown: let the replicas finish.
                                      if (!released && out.find("step 3/3") != std::string::npos) {
                                          kftrain::test::write_file(go, "");
                                          released = true;
                                      }
                                  });
    CHECK(run.code == 0);
    CHECK(released);
    CHECK(run.out.find("\x1b[1A") != std::string::npos);   // cursor up to the live line
    CHECK(run.out.find("\r\x1b[K") != std::string::npos);  // which is erased and rewritten
    Screen screen;
    screen.write(run.out);
    Lines lines = screen.lines();
    INFO(run.out);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines.back() == k_final_line);
    CHECK(count_containing(lines, "step ") == 1);  // no step line scrolled
    CHECK(count_containing(lines, "master-0 | start: model fake") == 1);
    CHECK(count_containing(lines, "worker-0 | start: model fake") == 1);
}

TEST_CASE("logs -f prints plain lines to a pipe, with --no-progress, and with TERM=dumb",
          "[progress][local][cli]") {
    LocalJobs jobs;
    auto file = jobs.job_file("plain-logs", 2, {"--steps", "3"});
    REQUIRE(jobs.kftrain({"submit", "-f", file, "--local"}).code == 0);
    jobs.wait_finished("plain-logs");

    auto piped = jobs.kftrain({"logs", "plain-logs", "-f", "--local"});
    CHECK(piped.code == 0);
    CHECK(piped.out.find('\x1b') == std::string::npos);
    for (const char* step : {"step 1/3 loss 1.0000", "step 2/3 loss 0.5000", "step 3/3"}) {
        CHECK(piped.out.find(std::string("master-0 | epoch 1/1 ") + step) != std::string::npos);
    }
    CHECK(piped.out.find("master-0 | finished: 1 epoch loss 0.1000 acc 90.0%\n") !=
          std::string::npos);

    const std::map<std::string, std::string> env = {{"XDG_STATE_HOME", jobs.dir() + "/state"},
                                                    {"TERM", "xterm"}};
    auto no_progress =
        run_kftrain_on_pty({"logs", "plain-logs", "-f", "--local", "--no-progress"}, env, 100);
    CHECK(no_progress.code == 0);
    CHECK(without_carriage_returns(no_progress.out) == piped.out);

    auto dumb =
        run_kftrain_on_pty({"logs", "plain-logs", "-f", "--local"},
                           {{"XDG_STATE_HOME", jobs.dir() + "/state"}, {"TERM", "dumb"}}, 100);
    CHECK(dumb.code == 0);
    CHECK(without_carriage_returns(dumb.out) == piped.out);
}

TEST_CASE("submit --follow on a terminal leaves the live line above the job's end",
          "[progress][local][cli]") {
    LocalJobs jobs;
    auto file = jobs.job_file("live-submit", 2, {"--steps", "3"});
    auto run =
        run_kftrain_on_pty({"submit", "-f", file, "--local", "--follow"},
                           {{"XDG_STATE_HOME", jobs.dir() + "/state"}, {"TERM", "xterm"}}, 100);
    CHECK(run.code == 0);
    Screen screen;
    screen.write(run.out);
    Lines lines = screen.lines();
    INFO(run.out);
    REQUIRE(lines.size() >= 3);
    // Notes on stderr (the image does not apply locally) may come first.
    auto started = std::find(lines.begin(), lines.end(), "job live-submit started (local)");
    CHECK(started != lines.end());
    CHECK(started < lines.end() - 2);
    CHECK(lines[lines.size() - 2] == k_final_line);
    CHECK(lines.back().rfind("job live-submit Succeeded", 0) == 0);

    auto plain = run_kftrain_on_pty(
        {"submit", "-f", file, "--local", "--follow", "--no-progress", "--replace"},
        {{"XDG_STATE_HOME", jobs.dir() + "/state"}, {"TERM", "xterm"}}, 100);
    CHECK(plain.code == 0);
    CHECK(plain.out.find('\x1b') == std::string::npos);
    CHECK(plain.out.find("master-0 | epoch 1/1 step 1/3 loss 1.0000") != std::string::npos);
}

TEST_CASE("a program's own progress lines show their percentage and metrics on the live line",
          "[view]") {
    LiveProgress live(8);
    live.take(line("master-0", R"({"v":1,"event":"progress","epoch":2,"epochs":5,"percent":37.5,)"
                               R"("eta_s":120,"metrics":{"loss":"0.42","f1":"0.81"}})"));
    REQUIRE(live.block().size() == 1);
    const std::string shown = live.block().front();
    INFO(shown);
    CHECK(shown.find("37.5%") != std::string::npos);
    CHECK(shown.find("f1 0.81") != std::string::npos);
    CHECK(shown.find("ETA ") != std::string::npos);
}

TEST_CASE("submit --follow on a terminal shows what the program posts on a live line of its own",
          "[progress][local][cli][status-server]") {
    LocalJobs jobs;
    const std::string release = jobs.dir() + "/release";
    const std::string file = jobs.dir() + "/posted.yaml";
    kftrain::test::write_file(
        file, "name: posted\nkind: TrainJob\nreplicas: 1\ncommand: [python3, \"" +
                  std::string(kftrain::test::source_dir()) + "/test/fakes/status_poster.py\", \"" +
                  release + "\", \"0\"]\n");
    bool released = false;
    auto run = run_kftrain_on_pty({"submit", "-f", file, "--local", "--follow"},
                                  {{"XDG_STATE_HOME", jobs.dir() + "/state"}, {"TERM", "xterm"}},
                                  100, [&](const std::string& out) {
                                      // The post is on screen: let the program end.
                                      if (!released && out.find("grad_norm") != std::string::npos) {
                                          kftrain::test::write_file(release, "");
                                          released = true;
                                      }
                                  });
    CHECK(run.code == 0);
    CHECK(released);
    Screen screen;
    screen.write(run.out);
    Lines lines = screen.lines();
    INFO(run.out);
    CHECK(count_containing(lines, "status   | 45%") == 1);
    CHECK(count_containing(lines, "grad_norm 1.5") == 1);
}
