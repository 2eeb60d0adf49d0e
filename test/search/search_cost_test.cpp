#include "search/search_cost.h"

#include <catch2/catch.hpp>

#include "backend/kube/search/experiment_reader.h"
#include "support/katib_data.h"
#include "support/text.h"

using namespace kftrain;
using kftrain::estimate::CpuPrice;
using kftrain::estimate::PriceCatalog;

namespace {

// CPU prices alone: a replica of 2 cores and 4 GiB costs $0.076 an hour.
cost::Pricing cpu_pricing() {
    PriceCatalog catalog;
    catalog.file = "prices.yaml";
    catalog.cpu = CpuPrice{"n2", 0.03, 0.004, std::nullopt};
    return {catalog, ""};
}

}  // namespace

TEST_CASE("a search costs each trial's time x its replicas' price, and their sum", "[search]") {
    auto search = test::read_katib_search("katib-running");
    auto& status = search.status;
    search::price_search(status, search.trial_jobs, search.template_job, cpu_pricing(),
                         kftrain::test::time_at("2024-05-02T09:20:00Z"));
    const double per_second = 2 * 0.076 / 3600;  // 2 replicas of a trial
    // Finished trials cost start to finish, running ones until now; the pending one (the
    // sixth, created 440 s ago) has not started and costs nothing.
    REQUIRE(status.trials.size() == 6);
    CHECK(status.trials[5].state == kftrain::tune::TrialState::Pending);
    const double seconds[] = {750, 660, 200, 990, 530, 0};
    double total = 0;
    REQUIRE(status.trials.size() == 6);
    for (size_t i = 0; i < 6; ++i) {
        CAPTURE(status.trials[i].name);
        REQUIRE(status.trials[i].cost);
        CHECK(*status.trials[i].cost == Approx(seconds[i] * per_second));
        total += seconds[i] * per_second;
    }
    REQUIRE(status.cost);
    CHECK(*status.cost == Approx(total));
    CHECK(status.currency == "USD");
    CHECK(status.cost_basis ==
          "$0.1520/h per trial: 2 replicas x $0.0760/h each (2 cores, 4 GiB), prices.yaml");
}

TEST_CASE("a search of TrainJob trials is priced per node", "[search]") {
    auto search = test::read_katib_search("katib-trainjob");
    search::price_search(search.status, search.trial_jobs, search.template_job, cpu_pricing(),
                         kftrain::test::time_at("2024-05-04T09:00:03Z"));
    CHECK(search.status.cost_basis ==
          "$0.3040/h per trial: 2 replicas x $0.1520/h each (4 cores, 8 GiB), prices.yaml");
    const auto& trials = search.status.trials;
    REQUIRE(trials.size() == 2);
    REQUIRE(trials[0].cost);
    CHECK(*trials[0].cost == Approx(1800 * 2 * 0.152 / 3600));  // running for 30 minutes
    REQUIRE(trials[1].cost);
    CHECK(*trials[1].cost == Approx(900 * 2 * 0.152 / 3600));  // done in 15 minutes
}

TEST_CASE("a search that cannot be priced has no cost, and no error", "[search]") {
    SECTION("GPUs of a type the node selector does not name") {
        auto search = test::read_katib_search("katib-running");
        for (auto& job : search.trial_jobs) {
            job.requests = {{"Master", 1, 8, 0, 1}};
        }
        search.template_job->requests = {{"Master", 1, 8, 0, 1}};
        search::price_search(search.status, search.trial_jobs, search.template_job, cpu_pricing(),
                             kftrain::test::time_at("2024-05-02T09:20:00Z"));
        CHECK_FALSE(search.status.cost);
        CHECK(search.status.cost_basis == "");
        CHECK_FALSE(search.status.trials[0].cost);
    }
    SECTION("no requests known") {
        auto search = test::read_katib_search("katib-running");
        for (auto& job : search.trial_jobs) {
            job.requests.clear();
        }
        search.template_job.reset();
        search::price_search(search.status, search.trial_jobs, search.template_job, cpu_pricing(),
                             kftrain::test::time_at("2024-05-02T09:20:00Z"));
        CHECK_FALSE(search.status.cost);
        CHECK(search.status.currency == "");
    }
}
