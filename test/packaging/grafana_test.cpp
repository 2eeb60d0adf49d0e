// packaging/grafana/kftrain.json: the Grafana dashboard over the trainer's metrics. Its queries
// run against a real Prometheus in training/metrics_test.cpp; here, that it parses and names only
// metrics the trainer exports.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/files.h"
#include "support/paths.h"
#include "trainer/metrics/exposition.h"

using json = nlohmann::json;

namespace {

// Return every kftrain_* name in a query, with a histogram's _bucket, _sum or _count suffix
// taken off.
std::set<std::string> metric_names(const std::string& expr) {
    std::set<std::string> names;
    for (std::size_t at = expr.find("kftrain_"); at != std::string::npos;
         at = expr.find("kftrain_", at + 1)) {
        std::size_t end = at;
        while (end < expr.size() &&
               (std::isalnum(static_cast<unsigned char>(expr[end])) != 0 || expr[end] == '_')) {
            ++end;
        }
        std::string name = expr.substr(at, end - at);
        for (const char* suffix : {"_bucket", "_sum", "_count"}) {
            const std::string s = suffix;
            if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0 &&
                name.find("_seconds") != std::string::npos) {
                name.resize(name.size() - s.size());
            }
        }
        names.insert(name);
        at = end - 1;
    }
    return names;
}

}  // namespace

TEST_CASE("the Grafana dashboard parses and every panel queries metrics the trainer exports",
          "[packaging]") {
    const auto text = kftrain::test::read_bytes(std::string(kftrain::test::source_dir()) +
                                                "/packaging/grafana/kftrain.json");
    const auto dashboard = json::parse(text);
    std::set<std::string> exported;
    for (const auto& family : kftrain::trainer::metrics::families()) {
        exported.insert(family.name);
    }
    std::set<std::string> used;
    REQUIRE(dashboard["panels"].size() >= 8);
    for (const auto& panel : dashboard["panels"]) {
        INFO(panel["title"]);
        REQUIRE(panel["targets"].size() >= 1);
        CHECK(panel["datasource"]["uid"] == "${datasource}");
        for (const auto& target : panel["targets"]) {
            const auto expr = target["expr"].get<std::string>();
            INFO(expr);
            const auto names = metric_names(expr);
            CHECK_FALSE(names.empty());
            for (const auto& name : names) {
                CHECK(exported.count(name) == 1);
                used.insert(name);
            }
        }
    }
    // The views: throughput per rank, loss, ETA, the step's split, stragglers.
    for (const char* name : {"kftrain_samples_total", "kftrain_loss", "kftrain_eta_seconds",
                             "kftrain_step_seconds", "kftrain_allreduce_seconds"}) {
        CHECK(used.count(name) == 1);
    }
    bool job_variable = false;
    for (const auto& variable : dashboard["templating"]["list"]) {
        if (variable["name"] == "job") {
            job_variable = true;
            CHECK(metric_names(variable["definition"].get<std::string>())
                      .count("kftrain_samples_total") == 1);
        }
    }
    CHECK(job_variable);
}

TEST_CASE("docs/metrics.md names every metric the trainer exports", "[packaging]") {
    const auto page =
        kftrain::test::read_bytes(std::string(kftrain::test::source_dir()) + "/docs/metrics.md");
    for (const auto& family : kftrain::trainer::metrics::families()) {
        INFO(family.name);
        CHECK(page.find(std::string("| `") + family.name + "` | " + family.type + " |") !=
              std::string::npos);
    }
}
