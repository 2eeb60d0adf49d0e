#include "estimate/format.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

using namespace kftrain::estimate;

namespace {

// A plan of 1, 2 and 4 CPU replicas at 100 ms per step, the job file at 2.
Plan plan(bool priced) {
    Plan p;
    p.profile.model = "mnist-cnn";
    p.profile.dataset = "mnist";
    p.profile.measured = true;
    p.profile.source = "profile.json";
    p.device = "cpu";
    p.job_replicas = 2;
    p.input.step = {0.1, 0.06, 4'800'000, 0.0};
    p.input.batch_size = 64;
    p.input.samples = 60000;
    p.input.epochs = 1;
    p.input.startup_s = 60;
    p.input.links = {2e9, 1.25e9, 30e-6, 1};
    if (priced) {
        p.input.price_per_replica_hour = 0.5;
    }
    p.input.replicas = {1, 2, 4};
    p.assumptions = {{"start-up overhead", "1m0s", "default: pod scheduling"}};
    return p;
}

std::string line_starting(const std::string& text, const std::string& start) {
    const auto at = text.find("\n" + start);
    return at == std::string::npos ? "" : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("estimate table marks sizes and lists assumptions", "[estimate]") {
    const Report r = make_report("mnist-ddp", plan(true), Goal{Goal::Kind::budget, 100});
    const std::string table = format_table(r);
    CHECK(table.rfind("Estimate for mnist-ddp: mnist-cnn on mnist, 60000 samples x 1 epoch\n", 0) ==
          0);
    CHECK(line_starting(table, "REPLICAS").find("SPEEDUP  EFFICIENCY  COST") != std::string::npos);
    CHECK(line_starting(table, "1 ").find("cheapest") != std::string::npos);
    CHECK(line_starting(table, "2 ").find("job file") != std::string::npos);
    CHECK(line_starting(table, "4 ").find("<- choice, fastest") != std::string::npos);
    CHECK(line_starting(table, "  start-up overhead").find("default: pod scheduling") !=
          std::string::npos);
    CHECK(table.find("For the budget $100.00: 4 replicas") != std::string::npos);
}

TEST_CASE("estimate table shows a quoted command line's control bytes escaped", "[estimate]") {
    Plan p = plan(false);
    // A measured program's command line, as its profile file has it.
    p.assumptions.push_back({"program", "python3 train.py\n\x1b[2Jrm -rf /", "measured: profile"});
    const std::string table = format_table(make_report("mnist-ddp", p, std::nullopt));
    CHECK(table.find('\x1b') == std::string::npos);
    CHECK(line_starting(table, "  program").find("train.py\\x0a") != std::string::npos);
    CHECK(line_starting(table, "  program").find("measured: profile") != std::string::npos);
}

TEST_CASE("estimate JSON leaves cost and cheapest null without prices", "[estimate]") {
    const Report r = make_report("mnist-ddp", plan(false), std::nullopt);
    const auto j = nlohmann::json::parse(format_json(r));
    CHECK(j["sizes"].size() == 3);
    CHECK(j["sizes"][0]["cost"].is_null());
    CHECK(j["cheapest"].is_null());
    CHECK(j["fastest"] == 4);
    CHECK(j["goal"].is_null());
    CHECK(j["price_per_replica_hour"].is_null());
    CHECK(format_table(r).find("COST") != std::string::npos);
}
