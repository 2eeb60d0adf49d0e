// After the job is gone: two finished jobs deleted with kubectl (as a TTL or a colleague's
// cleanup would) still answer logs, diagnose, history and cost from their records, and prune
// deletes a finished job and keeps its record, on the real cluster.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"
#include "support/text.h"

using kftrain::e2e::Namespace;
using kftrain::test::contains;
using nlohmann::json;

namespace {

// Run a 2-replica python3 program to its end; return kftrain's exit code.
int run_to_end(const Namespace& ns, const std::string& name, const std::string& program) {
    auto run = ns.kftrain({"run", "--no-code", "--image", kftrain::e2e::python_image(),
                           "--replicas", "2", "--name", name, "--cpu", "50m", "--memory", "64Mi",
                           "--retries", "0", "--wait", "--", "python3", "-c", program});
    INFO(run.out << run.err << kftrain::e2e::pods_of(ns));
    return run.code;
}

// Return the names in a -o json listing of records or cost rows.
std::vector<std::string> names_in(const json& items, const char* key) {
    std::vector<std::string> names;
    for (const auto& item : items) {
        names.push_back(item.value(key, ""));
    }
    return names;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_CASE("a finished job's logs, diagnosis and cost outlive the job, and prune keeps its record",
          "[e2e]") {
    Namespace ns("history");
    // The master ends last: a worker still running when the master's success ends the job is
    // stopped (cleanPodPolicy), and its last lines with it.
    REQUIRE(run_to_end(ns, "fine",
                       "import os, time; rank = os.environ['RANK']; print('rank', rank, 'done', "
                       "flush=True); time.sleep(10 if rank == '0' else 0)") == 0);
    REQUIRE(run_to_end(ns, "broken", "import kftrain_no_such_module") == 1);
    auto before = ns.kftrain({"diagnose", "broken", "-o", "json"});
    INFO(before.out << before.err);
    REQUIRE(before.code == 0);
    const std::string why = json::parse(before.out)["why"].get<std::string>();
    CHECK(contains(why, "kftrain_no_such_module"));

    REQUIRE(ns.kftrain({"status", "fine"}).code == 0);

    // Gone, as a ttlSecondsAfterFinished would take them.
    REQUIRE(ns.kubectl({"delete", "pytorchjobs.kubeflow.org", "fine", "broken", "--wait"}).code ==
            0);

    auto logs = ns.kftrain({"logs", "fine"});
    INFO(logs.out << logs.err);
    REQUIRE(logs.code == 0);
    CHECK(contains(logs.out, "master-0"));
    CHECK(contains(logs.out, "rank 0 done"));
    CHECK(contains(logs.out, "worker-0"));
    CHECK(contains(logs.out, "rank 1 done"));
    CHECK(contains(logs.err, "no longer exists on the cluster"));

    auto after = ns.kftrain({"diagnose", "broken", "-o", "json"});
    INFO(after.out << after.err);
    REQUIRE(after.code == 0);
    CHECK(json::parse(after.out)["why"] == why);

    auto history = ns.kftrain({"history", "-o", "json"});
    INFO(history.out << history.err);
    REQUIRE(history.code == 0);
    const json records = json::parse(history.out);
    const auto recorded = names_in(records["items"], "name");
    CHECK(has(recorded, "fine"));
    CHECK(has(recorded, "broken"));

    auto cost = ns.kftrain({"cost", "--since", "1h", "-o", "json"});
    INFO(cost.out << cost.err);
    REQUIRE(cost.code == 0);
    const json spent = json::parse(cost.out);
    const auto priced = names_in(spent["rows"], "key");  // by job: NAMESPACE/NAME
    CHECK(has(priced, ns.name() + "/fine"));
    CHECK(has(priced, ns.name() + "/broken"));
    for (const auto& row : spent["rows"]) {
        CHECK(row["cost"].get<double>() > 0);
    }

    // prune: --dry-run deletes nothing; then the finished job goes and its record stays.
    REQUIRE(run_to_end(ns, "old", "print('old done')") == 0);
    // Finished more than a second ago: the finish time has whole seconds.
    kftrain::e2e::poll_until(
        "prune --dry-run to name old", std::chrono::seconds(30), [&](std::string& last) {
            auto dry = ns.kftrain({"prune", "--older-than", "1s", "--dry-run"});
            last = dry.out + dry.err;
            return dry.code == 0 && contains(dry.out, "old");
        });
    CHECK(ns.kubectl({"get", "pytorchjobs.kubeflow.org", "old"}).code == 0);
    auto pruned = ns.kftrain({"prune", "--older-than", "1s"});
    INFO(pruned.out << pruned.err);
    REQUIRE(pruned.code == 0);
    kftrain::e2e::poll_until("old to be gone", std::chrono::seconds(60), [&](std::string& last) {
        auto got = ns.kubectl({"get", "pytorchjobs.kubeflow.org", "old"});
        last = got.out + got.err;
        return got.code != 0 && contains(got.err, "NotFound");
    });
    auto kept = ns.kftrain({"logs", "old"});
    INFO(kept.out << kept.err);
    CHECK(kept.code == 0);
    CHECK(contains(kept.out, "old done"));
}
