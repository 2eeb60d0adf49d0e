#include "cost/spend.h"

#include <catch2/catch.hpp>

#include "support/text.h"

using namespace kftrain;

namespace {

// A recorded job of team-a that ran an hour on 2 replicas and cost amount.
cost::SpendItem spend_item(const std::string& name, std::optional<double> amount,
                           const std::string& ns = "team-a") {
    cost::SpendItem item;
    item.name = name;
    item.namespace_ = ns;
    item.kind = "PyTorchJob";
    item.run_s = 3600;
    item.replicas = 2;
    item.amount = amount;
    item.unpriced = amount ? "" : "GPU type unknown";
    item.currency = "USD";
    return item;
}

cost::Spend spend_by(const std::vector<cost::SpendItem>& items, const std::string& by) {
    auto grouping = cost::parse_spend_grouping(by);
    REQUIRE(grouping);
    return cost::group_spend(items, *grouping);
}

std::vector<std::string> spend_keys(const cost::Spend& spend) {
    std::vector<std::string> keys;
    for (const auto& row : spend.rows) {
        keys.push_back(row.key + "=" + std::to_string(row.jobs));
    }
    return keys;
}

}  // namespace

TEST_CASE("cost rows group jobs by each --by key, most costly first", "[cost][spend]") {
    auto bert = spend_item("bert", 10.0);
    bert.queue = "gpu-queue";
    bert.labels = {{"team", "nlp"}, {"kftrain.io/submitted-by", "ana"}};
    auto gpt = spend_item("gpt", 30.0, "team-b");
    gpt.queue = "gpu-queue";
    gpt.labels = {{"team", "nlp"}};
    auto resnet = spend_item("resnet", 5.0);
    resnet.labels = {{"kftrain.io/submitted-by", "ana"}};
    const std::vector<cost::SpendItem> items = {bert, gpt, resnet};

    struct Case {
        const char* name;
        const char* by;
        std::vector<std::string> keys;
    };
    const std::vector<Case> cases = {
        {"by job: namespace/name each",
         "job",
         {"team-b/gpt=1", "team-a/bert=1", "team-a/resnet=1"}},
        {"by namespace", "namespace", {"team-b=1", "team-a=2"}},
        {"by queue, (none) for a job without one", "queue", {"gpu-queue=2", "(none)=1"}},
        {"by a label, (none) where it is absent", "label:team", {"nlp=2", "(none)=1"}},
        {"by user: (unknown) without kftrain.io/submitted-by", "user", {"(unknown)=1", "ana=2"}},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            const cost::Spend spend = spend_by(items, c.by);
            CHECK(spend_keys(spend) == c.keys);
            CHECK(spend.total.jobs == 3);
            CHECK(spend.total.amount == Approx(45.0));
            CHECK(spend.total.replica_hours == Approx(6.0));
            CHECK(cost::grouping_name(spend.grouping) == c.by);
        }
    }
}

TEST_CASE("a bad --by names the flag, the keys and the value", "[cost][spend]") {
    for (const char* bad : {"", "owner", "label:", "Job"}) {
        auto parsed = cost::parse_spend_grouping(bad);
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error() == std::string("--by: must be job, namespace, queue, user or "
                                            "label:KEY (got ") +
                                    bad + ")");
    }
}

TEST_CASE("a run time not known is shown as unknown, never as 0", "[cost][spend]") {
    auto known = spend_item("known", 1.0);
    auto lost = spend_item("lost", 1.0);
    lost.run_s.reset();
    struct Case {
        const char* name;
        std::vector<cost::SpendItem> items;
        std::string run;
    };
    const std::vector<Case> cases = {
        {"every run time known", {known}, "1h0m"},
        {"none known", {lost}, "unknown"},
        {"some known: their sum and how many are not", {known, lost}, "1h0m + 1 unknown"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            const cost::Spend spend = spend_by(c.items, "namespace");
            CHECK(cost::run_text(spend.total) == c.run);
            CHECK(cost::run_text(spend.rows.front()) == c.run);
        }
    }
    SECTION("-o json says null for a row whose run time is unknown") {
        auto doc = cost::spend_to_json(spend_by({lost}, "job"));
        CHECK(doc["rows"][0]["run_s"].is_null());
        CHECK(doc["rows"][0]["unknown_run_time"] == 1);
    }
}

TEST_CASE("a job not priced is counted with its reason and the total says how many",
          "[cost][spend]") {
    const auto priced = spend_item("bert", 12.3);
    const auto unpriced = spend_item("gpt", std::nullopt);
    struct Case {
        const char* name;
        std::vector<cost::SpendItem> items;
        const char* by;
        std::string row;
        std::string total;
    };
    const std::vector<Case> cases = {
        {"one job: its reason", {unpriced}, "job", "- (GPU type unknown)", "-, 1 job not priced"},
        {"a row of both",
         {priced, unpriced},
         "namespace",
         "$12.30 + 1 not priced",
         "$12.30, 1 job not priced"},
        {"a row of none priced",
         {unpriced, unpriced},
         "namespace",
         "- (2 not priced)",
         "-, 2 jobs not priced"},
        {"every job priced", {priced}, "job", "$12.30", "$12.30"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            const cost::Spend spend = spend_by(c.items, c.by);
            CHECK(cost::cost_text(spend.rows.front()) == c.row);
            CHECK(cost::total_cost_text(spend.total) == c.total);
        }
    }
    SECTION("-o json lists each job not priced and why") {
        auto doc = cost::spend_to_json(spend_by({priced, unpriced}, "job"));
        CHECK(doc["unpriced"] == nlohmann::ordered_json::parse(
                                     R"([{"job": "team-a/gpt", "why": "GPU type unknown"}])"));
        CHECK(doc["total"]["not_priced"] == 1);
        CHECK(doc["total"]["cost"] == Approx(12.3));
        CHECK(doc["currency"] == "USD");
    }
}

TEST_CASE("the estimate made at submit is shown beside what the job cost", "[cost][spend]") {
    auto estimated = spend_item("bert", 12.0);
    estimated.estimated = 10.0;
    const auto without = spend_item("gpt", 3.0);
    struct Case {
        const char* name;
        std::vector<cost::SpendItem> items;
        std::string estimate;
    };
    const std::vector<Case> cases = {
        {"no job had one", {without}, "-"},
        {"every job had one", {estimated}, "$10.00"},
        {"some had one: which share", {estimated, without}, "$10.00 (1 of 2 jobs)"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            const cost::Spend spend = spend_by(c.items, "namespace");
            CHECK(cost::estimate_text(spend.total) == c.estimate);
        }
    }
}

TEST_CASE("a live job's estimate is read from its kftrain.io/estimated-cost annotation",
          "[cost][spend]") {
    job::JobStatus status;
    status.name = "bert";
    status.namespace_ = "team-a";
    status.backend = "kubernetes";
    status.phase = job::JobPhase::Running;
    status.started = "2024-05-01T10:00:00Z";
    status.annotations = {{"kftrain.io/estimated-cost", "4.20"}};
    status.labels = {{"kueue.x-k8s.io/queue-name", "gpu-queue"}};
    const auto item =
        cost::spend_of_job(status, {}, kftrain::test::time_at("2024-05-01T11:00:00Z"));
    CHECK(item.estimated == Approx(4.2));
    CHECK(item.queue == "gpu-queue");
    CHECK(item.run_s == Approx(3600));
    CHECK_FALSE(item.amount);  // no requests: it cannot be priced, and says why
    CHECK_FALSE(item.unpriced.empty());
}

TEST_CASE("cost -o csv escapes what it quotes as RFC 4180 says", "[cost][spend]") {
    struct Case {
        const char* name;
        std::string field;
        std::string written;
    };
    const std::vector<Case> cases = {
        {"plain text as it is", "team-a", "team-a"},
        {"a comma: quoted", "a,b", "\"a,b\""},
        {"a quote: doubled, quoted", "say \"hi\"", "\"say \"\"hi\"\"\""},
        {"a line break: quoted", "two\nlines", "\"two\nlines\""},
        {"a carriage return: quoted", "cr\r", "\"cr\r\""},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            CHECK(cost::csv_field(c.field) == c.written);
        }
    }
    SECTION("a header, a line per row, then the total") {
        auto odd = spend_item("x", 2.5);
        odd.labels = {{"team", "ml, \"core\""}};
        auto lost = spend_item("y", std::nullopt);
        lost.run_s.reset();
        CHECK(cost::spend_csv(spend_by({odd, lost}, "label:team")) ==
              "label:team,jobs,run_s,unknown_run_time,replica_hours,cost,not_priced,"
              "estimated_cost,currency\n"
              "\"ml, \"\"core\"\"\",1,3600,0,2,2.5,0,,USD\n"
              "(none),1,,1,0,,1,,USD\n"
              "TOTAL,2,3600,1,2,2.5,1,,USD\n");
    }
}

TEST_CASE("a live job counts once: not where its uid has a record, nor finished before --since",
          "[cost][spend]") {
    auto live_status = [](const std::string& name, const std::string& uid,
                          const std::string& finished) {
        job::JobStatus status;
        status.name = name;
        status.uid = uid;
        status.backend = "kubernetes";
        status.phase = finished.empty() ? job::JobPhase::Running : job::JobPhase::Succeeded;
        status.started = "2024-05-01T10:00:00Z";
        status.finished = finished;
        return status;
    };
    const std::vector<job::JobStatus> jobs = {
        live_status("recorded", "uid-1", "2024-05-01T11:00:00Z"),
        live_status("fresh", "uid-2", "2024-05-01T11:00:00Z"),
        live_status("old", "uid-3", "2024-04-01T11:00:00Z"),
        live_status("running", "uid-4", ""),
        live_status("no-uid", "", "2024-05-01T11:00:00Z"),
    };
    const std::time_t now = kftrain::test::time_at("2024-05-01T12:00:00Z");
    std::vector<std::string> names;
    for (const auto& item : cost::live_spend(jobs, {"uid-1"}, 7 * 86400, {}, now)) {
        names.push_back(item.name);
    }
    CHECK(names == std::vector<std::string>{"fresh", "running", "no-uid"});
    CHECK(cost::live_spend(jobs, {"uid-1"}, 0, {}, now).size() == 4);  // no --since: old too
}
