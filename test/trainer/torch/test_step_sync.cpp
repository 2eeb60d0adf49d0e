// Loss, accuracy, divergence and SIGTERM agreed between ranks only at sync points (a progress
// line, a checkpoint, a stop, an epoch's end), with real trainer processes.
#include <csignal>
#include <regex>

#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> mlp_args(int samples, int epochs, int log_every) {
    return {"--model",      "mlp",  "--samples",   std::to_string(samples),
            "--batch-size", "16",   "--epochs",    std::to_string(epochs),
            "--log-format", "json", "--log-every", std::to_string(log_every),
            "--threads",    "1",    "--timeout",   "60"};
}

// Return the first number after prefix in text (-1 when absent).
int64_t number_after(const std::string& text, const std::string& prefix) {
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(prefix + "(\\d+)"))) {
        return -1;
    }
    return std::stoll(m[1].str());
}

std::vector<Rank> run_two(const std::string& dir, const std::vector<std::string>& args,
                          int expected_code) {
    const auto ranks = start_job(dir, 2, args);
    for (const auto& r : ranks) {
        INFO(read_bytes(r.err_path));
        CHECK(wait_exit(r, 120s) == expected_code);
    }
    return ranks;
}

}  // namespace

TEST_CASE("progress lines report the same loss and accuracy whatever --log-every",
          "[trainer][sync]") {
    const std::string every_step = make_temp_dir();
    const std::string every_fourth = make_temp_dir();
    // 600 samples on 2 ranks in batches of 16: 19 steps per epoch, the last one short.
    const auto a = run_two(every_step, mlp_args(600, 2, 1), 0);
    const auto b = run_two(every_fourth, mlp_args(600, 2, 4), 0);
    std::map<int64_t, nlohmann::json> by_step;
    for (const auto& p : events(a[0], "progress")) {
        by_step[p["global_step"].get<int64_t>()] = p;
    }
    REQUIRE(by_step.size() == 38);
    const auto sparse = events(b[0], "progress");
    REQUIRE(sparse.size() == 2 * 5);  // steps 4, 8, 12, 16 and 19 of each epoch
    for (const auto& p : sparse) {
        const auto& dense = by_step.at(p["global_step"].get<int64_t>());
        INFO("global step " << p["global_step"]);
        // Running means since the start of the epoch, over every sample of both ranks.
        CHECK(p["loss"] == dense["loss"]);
        CHECK(p["accuracy"] == dense["accuracy"]);
    }
    const auto epochs_a = events(a[0], "epoch");
    const auto epochs_b = events(b[0], "epoch");
    REQUIRE(epochs_a.size() == 2);
    REQUIRE(epochs_b.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(epochs_b[i]["loss"] == epochs_a[i]["loss"]);
        CHECK(epochs_b[i]["accuracy"] == epochs_a[i]["accuracy"]);
    }
    CHECK(events(b[0], "eval").at(1)["accuracy"] == events(a[0], "eval").at(1)["accuracy"]);
}

TEST_CASE("a NaN loss between progress lines stops both ranks after --nan-patience steps",
          "[trainer][sync]") {
    const std::string dir = make_temp_dir();
    auto args = mlp_args(2000, 1, 20);
    args.insert(args.end(), {"--lr", "1e30", "--nan-patience", "3"});
    const auto ranks = run_two(dir, args, 1);
    for (const auto& r : ranks) {
        const auto errors = events(r, "error");
        REQUIRE(errors.size() == 1);
        const auto message = errors[0]["message"].get<std::string>();
        CHECK(message.find("for the last 3 step(s)") != std::string::npos);
        CHECK(message.find("(--nan-patience 3): training diverged") != std::string::npos);
        CHECK(events(r, "finish").empty());
    }
    // Counted step by step, though read every 20 steps: the streak began two steps before
    // the step that reached the patience.
    const auto error = events(ranks[0], "error")[0]["message"].get<std::string>();
    const int64_t last = number_after(error, "up to step ");
    int64_t first = -1;  // where the last streak began
    for (const auto& w : events(ranks[0], "warning")) {
        const auto text = w["message"].get<std::string>();
        if (text.find("(--nan-patience)") != std::string::npos) {
            first = number_after(text, "at step ");
        }
    }
    CHECK(first > 0);
    CHECK(last == first + 2);
}

TEST_CASE("SIGTERM to one rank between progress lines stops both ranks at one step",
          "[trainer][sync]") {
    const std::string dir = make_temp_dir();
    // 1875 steps per epoch; progress lines and checkpoints only at epoch ends.
    auto args = mlp_args(60000, 100, 100000);
    args.insert(args.end(), {"--checkpoint-dir", dir + "/ckpt"});
    const auto ranks = start_job(dir, 2, args);
    REQUIRE(wait_for_output(ranks[0], "\"event\":\"epoch\"", 120s));
    ::kill(ranks[1].pid, SIGTERM);
    std::vector<int64_t> stopped;
    for (const auto& r : ranks) {
        CHECK(wait_exit(r, 60s) == 143);
        for (const auto& w : events(r, "warning")) {
            const auto at =
                number_after(w["message"].get<std::string>(), "stopped by a signal at step ");
            if (at >= 0) {
                stopped.push_back(at);
            }
        }
    }
    REQUIRE(stopped.size() == 2);
    CHECK(stopped[0] == stopped[1]);
    // Within the second epoch, not at its end: the next step after the signal, not the next
    // progress line.
    CHECK(stopped[0] > 1875);
    CHECK(stopped[0] < 2 * 1875);
    CHECK(events(ranks[0], "checkpoint").back()["global_step"] == stopped[0]);
}
