// --metric-lines through the real program: the held-out metrics as Katib's StdOut collector
// reads them, one line per evaluation, and nothing of the kind without the flag.
#include <fmt/format.h>

#include "trainer/support/katib_metrics.h"
#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

// Train mlp on a few dozen synthetic samples, one process, in the given log format.
Rank train(const std::string& dir, const std::string& format, int epochs,
           const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--dataset",    "synthetic",
                                     "--model",      "mlp",
                                     "--samples",    "48",
                                     "--batch-size", "16",
                                     "--epochs",     std::to_string(epochs),
                                     "--threads",    "1",
                                     "--log-format", format};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto run = start_trainer(dir, format, args, {});
    REQUIRE(wait_exit(run, 120s) == 0);
    return run;
}

std::vector<std::string> lines_of(const Rank& r) {
    std::vector<std::string> out;
    std::istringstream in(read_bytes(r.out_path));
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

// Return the stdout lines from which Katib's filter reads accuracy or loss.
std::vector<std::string> metric_lines(const Rank& r) {
    std::vector<std::string> out;
    for (const auto& line : lines_of(r)) {
        if (has_katib_metric(line)) {
            out.push_back(line);
        }
    }
    return out;
}

}  // namespace

TEST_CASE("with --metric-lines rank 0 prints one accuracy=A loss=L line per eval with its values",
          "[trainer][metrics]") {
    const std::string dir = make_temp_dir();
    const auto run = train(dir, "json", 2, {"--metric-lines", "true"});
    const auto evals = events(run, "eval");
    const auto lines = metric_lines(run);
    REQUIRE(evals.size() == 2);
    REQUIRE(lines.size() == evals.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const double accuracy = evals[i]["accuracy"].get<double>();
        const double loss = evals[i]["loss"].get<double>();
        INFO(lines[i]);
        // After the time Katib reads as the values' timestamp.
        CHECK(std::regex_match(lines[i].substr(0, lines[i].find(' ')),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
        CHECK(lines[i].substr(lines[i].find(' ') + 1) ==
              fmt::format("accuracy={:.6f} loss={:.6f}", accuracy, loss));
        const auto pairs = katib_pairs(lines[i]);
        REQUIRE(pairs.size() == 2);
        CHECK(pairs[0] ==
              std::pair<std::string, std::string>("accuracy", fmt::format("{:.6f}", accuracy)));
        CHECK(pairs[1] == std::pair<std::string, std::string>("loss", fmt::format("{:.6f}", loss)));
    }
}

TEST_CASE("with --log-format text the metric line follows each eval line", "[trainer][metrics]") {
    const std::string dir = make_temp_dir();
    const auto run = train(dir, "text", 2, {"--metric-lines", "true"});
    const auto lines = lines_of(run);
    int evals = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].find("] eval epoch ") == std::string::npos) {
            continue;
        }
        ++evals;
        REQUIRE(i + 1 < lines.size());
        INFO(lines[i + 1]);
        CHECK(std::regex_match(lines[i + 1],
                               std::regex(R"(\S+Z accuracy=[01]\.\d{6} loss=\d+\.\d{6})")));
    }
    CHECK(evals == 2);
    CHECK(metric_lines(run).size() == 2);
}

TEST_CASE("without --metric-lines no output line carries Katib metrics", "[trainer][metrics]") {
    for (const std::string format : {"json", "text"}) {
        const std::string dir = make_temp_dir();
        const auto run = train(dir, format, 1, {});
        INFO(format << ": " << read_bytes(run.out_path));
        CHECK(read_bytes(run.out_path).find("eval") != std::string::npos);
        CHECK(metric_lines(run).empty());
        CHECK_FALSE(has_katib_metric(read_bytes(run.err_path)));
    }
}
