#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/test_data.h"

namespace {

const std::string k_dir = std::string(kftrain::test::test_data_dir()) + "/estimate/";

struct Outcome {
    int code;
    std::string out;
    std::string err;
};

Outcome run(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = kftrain::cli::run_cli(args, out, err);
    return {code, out.str(), err.str()};
}

// estimate on the CPU job with the measured profile, plus extra flags.
Outcome run_estimate(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"estimate", "-f", k_dir + "cpu-job.yaml", "--profile",
                                     k_dir + "profile.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
}

}  // namespace

TEST_CASE("estimate prints a table marking the fastest and cheapest sizes", "[estimate]") {
    const Outcome o = run_estimate({"--workers", "1,2,4"});
    REQUIRE(o.code == 0);
    CHECK(o.err.empty());
    CHECK(o.out.find("Estimate for estimate-cpu: mnist-cnn on mnist, 60000 samples x 2 epochs") !=
          std::string::npos);
    CHECK(o.out.find("cheapest") != std::string::npos);
    CHECK(o.out.find("fastest") != std::string::npos);
    CHECK(o.out.find("measured: " + k_dir + "profile.json") != std::string::npos);
    CHECK(o.out.find("No --profile") == std::string::npos);
}

TEST_CASE("estimate says when it uses a built-in profile", "[estimate]") {
    const Outcome o = run({"estimate", "-f", k_dir + "cpu-job.yaml"});
    REQUIRE(o.code == 0);
    CHECK(o.out.find("No --profile: the built-in profile is computed, not measured.") !=
          std::string::npos);
}

TEST_CASE("estimate prints JSON with one entry per size", "[estimate]") {
    const Outcome o = run_estimate({"--workers", "1,2,4,8", "-o", "json", "--budget", "1"});
    REQUIRE(o.code == 0);
    const auto j = nlohmann::json::parse(o.out);
    CHECK(j["job"] == "estimate-cpu");
    REQUIRE(j["sizes"].size() == 4);
    CHECK(j["sizes"][0]["speedup"] == 1.0);
    CHECK(j["sizes"][3]["world_size"] == 8);
    CHECK(j["profile"]["measured"] == true);
    CHECK(j["cheapest"] == 1);
    CHECK(j["goal"]["kind"] == "budget");
    CHECK(j["goal"]["choice"] == j["fastest"]);
}

TEST_CASE("estimate's JSON says which sizes take their step from a profile", "[estimate]") {
    const std::string dir = kftrain::test::make_temp_dir();
    auto profile = nlohmann::json::parse(kftrain::test::read_test_data("estimate/profile.json"));
    profile["world_size"] = 2;
    profile["allreduce_s_per_step"] = 0.01;
    profile["allreduce_bandwidth_bytes_per_s"] = 1e9;
    profile["overlap_fraction"] = 0.0;
    profile["samples_per_sec"] = 1280.0;  // 2 x 64 samples in 0.1 s
    kftrain::test::write_file(dir + "/two.json", profile.dump());
    const Outcome o =
        run_estimate({"--profile", dir + "/two.json", "--workers", "1,2,4", "-o", "json"});
    REQUIRE(o.code == 0);
    const auto j = nlohmann::json::parse(o.out);
    REQUIRE(j["sizes"].size() == 3);
    CHECK(j["sizes"][0]["step_basis"] == "modelled");
    CHECK(j["sizes"][1]["step_basis"] == "measured");
    CHECK(j["sizes"][1]["step_s"].get<double>() == Approx(0.1));
    CHECK(j["sizes"][2]["step_basis"] == "modelled");
}

TEST_CASE("estimate rejects bad flags with exit 2 naming the flag", "[estimate]") {
    struct Case {
        std::vector<std::string> flags;
        std::string err;
    };
    const Case cases[] = {
        {{"--workers", "0,2"},
         "--workers: must be a comma-separated list of replica counts from 1 to 100000 (got 0,2)"},
        {{"--workers", "two"},
         "--workers: must be a comma-separated list of replica counts from 1 to 100000 (got two)"},
        {{"--network", "fast"},
         "--network: must be a bandwidth such as 100Gbps or 10GB/s (got fast)"},
        {{"--latency", "30"}, "--latency: must be a time such as 30us or 0.5ms (got 30)"},
        {{"--overhead", "soon"},
         "--overhead: not a duration such as 90s, 1h30m or 500ms (got soon)"},
        {{"--replicas-per-node", "0"}, "--replicas-per-node: must be a whole number >= 1 (got 0)"},
        {{"--deadline", "soon"},
         "--deadline: not a duration such as 90s, 1h30m or 500ms (got soon)"},
        {{"--deadline", "3600"},
         "--deadline: not a duration such as 90s, 1h30m or 500ms (got 3600; add a unit, as in "
         "3600s)"},
        {{"--budget", "lots"}, "--budget: must be an amount such as 50 or 12.50 (got lots)"},
        {{"--deadline", "2h", "--budget", "50"},
         "--budget: give --deadline or --budget, not both (got 50)"},
        {{"--gpu", "x100"},
         "--gpu: built-in prices has no such GPU type (one of a100, h100, l4, t4, v100) (got "
         "x100)"},
    };
    for (const auto& c : cases) {
        INFO(c.err);
        const Outcome o = run_estimate(c.flags);
        CHECK(o.code == 2);
        CHECK(o.err == "kftrain: error: " + c.err + "\n");
        CHECK(o.out.empty());
    }
}

TEST_CASE("estimate rejects a bad profile naming the file and key", "[estimate]") {
    const Outcome missing = run(
        {"estimate", "-f", k_dir + "cpu-job.yaml", "--profile", k_dir + "profile-no-compute.json"});
    CHECK(missing.code == 2);
    CHECK(missing.err == "kftrain: error: " + k_dir +
                             "profile-no-compute.json: field 'compute_s_per_step' is missing\n");
    const Outcome absent =
        run({"estimate", "-f", k_dir + "cpu-job.yaml", "--profile", k_dir + "nope.json"});
    CHECK(absent.code == 2);
    CHECK(absent.err == "kftrain: error: --profile: " + k_dir +
                            "nope.json: cannot read: No such file or directory\n");
}

TEST_CASE("estimate asks for --gpu when the job has GPUs", "[estimate]") {
    const Outcome o = run({"estimate", "-f", k_dir + "gpu-job.yaml"});
    CHECK(o.code == 2);
    CHECK(o.err ==
          "kftrain: error: --gpu: the job asks for 4 GPU(s) per replica; name their type to "
          "estimate it (one of a100, h100, l4, t4, v100) (got nothing)\n");
    CHECK(run({"estimate", "-f", k_dir + "gpu-job.yaml", "--gpu", "a100"}).code == 0);
}

TEST_CASE("estimate exits 2 when no size meets the deadline, after the table", "[estimate]") {
    const Outcome o = run_estimate({"--workers", "1,2", "--deadline", "1m"});
    CHECK(o.code == 2);
    CHECK(o.out.find("For the deadline 1m0s: no size fits.") != std::string::npos);
    CHECK(o.err.find("kftrain: error: --deadline: no size of 1, 2 finishes within 1m0s; the "
                     "fastest, 2 replicas, takes ") == 0);
    const Outcome met = run_estimate({"--workers", "1,2", "--deadline", "1h"});
    CHECK(met.code == 0);
    CHECK(met.out.find("is the cheapest size that meets it") != std::string::npos);
}

TEST_CASE("estimate reads --prices and reports its errors by file and line", "[estimate]") {
    const Outcome o = run_estimate({"--prices", k_dir + "bad-prices.yaml"});
    CHECK(o.code == 2);
    CHECK(o.err == "kftrain: error: " + k_dir +
                       "bad-prices.yaml:3: cpu.perGiBHour: must be a number >= 0 (got cheap)\n");
    ::setenv("KFTRAIN_PRICES", (k_dir + "bad-prices.yaml").c_str(), 1);
    const Outcome from_env = run_estimate({});
    ::unsetenv("KFTRAIN_PRICES");
    CHECK(from_env.code == 2);
    CHECK(from_env.err == o.err);
    const Outcome good = run_estimate(
        {"--prices", std::string(kftrain::test::source_dir()) + "/examples/prices.yaml"});
    CHECK(good.code == 0);
    CHECK(good.out.find("examples/prices.yaml: AWS EC2") != std::string::npos);
}

TEST_CASE("submit --max-cost refuses a job whose estimate is over the budget", "[estimate]") {
    const std::vector<std::string> base = {
        "submit", "-f", k_dir + "cpu-job.yaml", "--profile", k_dir + "profile.json", "--dry-run"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        return run(args);
    };
    const Outcome over = with({"--max-cost", "0.001"});
    CHECK(over.code == 2);
    CHECK(over.out.empty());
    CHECK(over.err ==
          "kftrain: error: --max-cost: the estimated cost of 4 replicas is $0.0091 (1m43s at "
          "$0.0802 per replica-hour), more than the budget; nothing was submitted (got 0.001)\n");
    const Outcome within = with({"--max-cost", "$5"});
    CHECK(within.code == 0);
    CHECK(within.out.find("kind: PyTorchJob") != std::string::npos);
    CHECK(with({"--max-cost", "lots"}).err ==
          "kftrain: error: --max-cost: must be an amount such as 50 or 12.50 (got lots)\n");
    // Standard input is the job file's alone: a catalog or profile from it is refused.
    const Outcome piped = with({"--max-cost", "5", "--prices", "-"});
    CHECK(piped.code == 2);
    CHECK(piped.out.empty());
    CHECK(piped.err ==
          "kftrain: error: --prices: standard input is read only by -f/--file; give "
          "a file (got -)\n");
    CHECK(run({"submit", "-f", k_dir + "cpu-job.yaml", "--gpu", "a100", "--dry-run"}).err ==
          "kftrain: error: --gpu: needs --max-cost (got a100)\n");
}

TEST_CASE("estimate takes repeated profiles of one size as their median, if measured alike",
          "[estimate]") {
    const std::string dir = kftrain::test::make_temp_dir();
    auto profile = nlohmann::json::parse(kftrain::test::read_test_data("estimate/profile.json"));
    profile["compute_s_per_step"] = 0.12;  // caught in a slow spell
    kftrain::test::write_file(dir + "/slow.json", profile.dump());
    profile["batch_size"] = 32;
    kftrain::test::write_file(dir + "/batch32.json", profile.dump());
    const Outcome twice =
        run_estimate({"--profile", dir + "/slow.json", "--workers", "1", "-o", "json"});
    CHECK(twice.code == 0);
    const auto report = nlohmann::json::parse(twice.out);
    // 80 ms and 120 ms: their median.
    CHECK(report["sizes"][0]["step_s"].get<double>() == Approx(0.1));
    CHECK(twice.err.empty());
    const Outcome unlike = run_estimate({"--profile", dir + "/batch32.json"});
    CHECK(unlike.code == 2);
    CHECK(unlike.out.empty());
    CHECK(unlike.err == "kftrain: error: --profile: " + k_dir + "profile.json and " + dir +
                            "/batch32.json were both measured at world size 1 but with "
                            "batch_size 64 and 32; repeated profiles of one world size must be "
                            "measured alike (got " +
                            dir + "/batch32.json)\n");
    // One value per --profile: a second file needs a second flag.
    const Outcome extra = run({"estimate", "-f", k_dir + "cpu-job.yaml", "--profile",
                               k_dir + "profile.json", k_dir + "profile.json"});
    CHECK(extra.code == 2);
    CHECK(extra.out.empty());
}
