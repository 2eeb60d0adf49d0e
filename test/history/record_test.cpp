// A job's record as kept: the summary first and alone, the parts after it, logs cut to their
// caps and masked, and a damaged field or part costing only itself.

#include "history/record.h"

#include <catch2/catch.hpp>

#include "support/text.h"

using kftrain::history::k_record_log_bytes;
using kftrain::history::k_record_log_lines;
using kftrain::history::keep_log;
using kftrain::history::parse_record;
using kftrain::history::Record;
using kftrain::history::record_lines;
using kftrain::test::contains;
using nlohmann::json;

namespace {

Record sample() {
    Record r;
    r.summary.context = "kind-kind";
    r.summary.namespace_ = "team-a";
    r.summary.name = "bert";
    r.summary.uid = "0b7f3c1e-9d5a-4a43-8f3e-6d2f3f0c9a11";
    r.summary.kind = "PyTorchJob";
    r.summary.phase = "Failed";
    r.summary.finished = "2026-12-01T10:00:00Z";
    r.summary.run_s = 3600;
    r.summary.labels = {{"team", "nlp"}};
    r.summary.cost.amount = 1.25;
    r.summary.cost.currency = "USD";
    r.summary.why = "worker-1 was OOMKilled";
    r.job = json{{"kind", "PyTorchJob"}, {"metadata", {{"name", "bert"}}}};
    r.pods = json{{"kind", "List"}, {"items", json::array()}};
    r.events = json{{"kind", "List"}, {"items", json::array()}};
    r.diagnosis = json{{"cause", "OOMKilled"}};
    r.logs.push_back(keep_log("master-0", false, {"epoch 1/2", "epoch 2/2"}));
    r.logs.push_back(keep_log("worker-1", true, {"Killed"}));
    return r;
}

}  // namespace

TEST_CASE("a record reads back as written, its summary alone on the first line", "[history]") {
    const Record r = sample();
    const std::string text = record_lines(r);
    const json head = json::parse(text.substr(0, text.find('\n')));
    CHECK(head["name"] == "bert");
    CHECK(head["run_s"] == 3600);
    CHECK(!contains(text.substr(0, text.find('\n')), "epoch 1/2"));
    auto back = parse_record(text);
    REQUIRE(back);
    CHECK(back->damaged.empty());
    CHECK(back->summary.uid == r.summary.uid);
    CHECK(back->summary.cost.amount == 1.25);
    CHECK(back->summary.labels.at("team") == "nlp");
    CHECK(back->summary.why == "worker-1 was OOMKilled");
    CHECK(back->job == r.job);
    CHECK(back->diagnosis == r.diagnosis);
    REQUIRE(back->logs.size() == 2);
    CHECK(back->logs[0].lines == std::vector<std::string>{"epoch 1/2", "epoch 2/2"});
    CHECK(back->logs[1].previous);
}

TEST_CASE("an unknown run time stays unknown, not 0", "[history]") {
    Record r = sample();
    r.summary.run_s.reset();
    r.summary.cost.amount.reset();
    r.summary.cost.unpriced = "when it ran is not known";
    auto back = parse_record(record_lines(r));
    REQUIRE(back);
    CHECK(!back->summary.run_s);
    CHECK(!back->summary.cost.amount);
    CHECK(json::parse(record_lines(r).substr(0, record_lines(r).find('\n')))["run_s"].is_null());
}

TEST_CASE("a kept log is its last lines within the caps, masked as diagnose masks them",
          "[history]") {
    std::vector<std::string> many;
    for (std::size_t i = 0; i < k_record_log_lines + 10; ++i) {
        many.push_back("line " + std::to_string(i));
    }
    many.push_back("HF_TOKEN=hf_abcdefghijklmnop");
    auto log = keep_log("master-0", false, many);
    CHECK(log.cut);
    CHECK(log.lines.size() == k_record_log_lines);
    CHECK(!contains(log.lines.back(), "hf_abcdefghijklmnop"));
    CHECK(contains(log.lines.back(), "HF_TOKEN="));
    CHECK(log.lines.front() == "line 11");

    const std::string wide(k_record_log_bytes / 4, 'x');
    auto big = keep_log("worker-0", false, {wide, wide, wide, wide, "last"});
    CHECK(big.cut);
    CHECK(big.lines.back() == "last");
    std::size_t bytes = 0;
    for (const auto& line : big.lines) {
        bytes += line.size() + 1;
    }
    CHECK(bytes <= k_record_log_bytes);

    auto whole = keep_log("worker-0", false, {"a", "b"});
    CHECK(!whole.cut);
}

TEST_CASE("a damaged field or part of a record costs only itself", "[history]") {
    const std::string text = record_lines(sample());
    std::vector<std::string> lines;
    for (std::size_t at = 0, next; at < text.size(); at = next + 1) {
        next = text.find('\n', at);
        lines.push_back(text.substr(at, next - at));
    }
    json head = json::parse(lines[0]);
    head["run_s"] = "an hour";
    head["labels"] = json::array({1, 2});
    lines[0] = head.dump();
    lines[2] = "{\"part\": \"pods\", \"value\": [1, 2";  // cut short
    lines.push_back("\x01\x02 not json");
    std::string damaged;
    for (const auto& line : lines) {
        damaged += line + "\n";
    }
    auto back = parse_record(damaged);
    REQUIRE(back);
    CHECK(back->summary.name == "bert");
    CHECK(!back->summary.run_s);
    CHECK(back->summary.labels.empty());
    CHECK(back->job["kind"] == "PyTorchJob");
    CHECK(back->logs.size() == 2);
    REQUIRE(back->damaged.size() == 4);
    CHECK(contains(back->damaged[0], "run_s"));
    CHECK(contains(back->damaged[1], "labels"));
    CHECK(contains(back->damaged[2], "line 3"));

    CHECK(!parse_record("not a record\n"));
    CHECK(!parse_record(""));
}

TEST_CASE("a record never holds a credential the live diagnosis would have masked", "[history]") {
    Record r = sample();
    r.pods = json{{"items",
                   {{{"spec",
                      {{"containers",
                        {{{"env",
                           {{{"name", "HF_TOKEN"}, {"value", "hf_live_abcdef123456"}},
                            {{"name", "EPOCHS"}, {"value", "3"}}}}}}}}}}}}};
    r.events = json{{"items", {{{"message", "pulling https://user:hunter2@registry.example/x"}}}}};
    kftrain::history::mask_record(r);
    const std::string text = record_lines(r);
    CHECK(!contains(text, "hf_live_abcdef123456"));
    CHECK(!contains(text, "hunter2"));
    CHECK(contains(text, "HF_TOKEN"));
    CHECK(r.pods["items"][0]["spec"]["containers"][0]["env"][1]["value"] == "3");
}
