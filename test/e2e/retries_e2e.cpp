// Retry budgets on the real cluster: a PyTorchJob whose program cannot start ends Failed on its
// own and diagnose calls it a crash loop; a TrainJob's budget is a TrainingRuntime the real API
// server accepts, owned by the TrainJob and reused by the next job of the same budget.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"

using kftrain::e2e::Namespace;
using nlohmann::json;

TEST_CASE("a PyTorchJob whose program cannot start ends Failed with its budget, a crash loop",
          "[e2e]") {
    Namespace ns("retries");
    // As a user would: kftrain run of a script whose import fails (after a moment, as a real
    // program's imports take), one retry.
    auto run = ns.kftrain({"run", "--no-code", "--image", kftrain::e2e::python_image(),
                           "--replicas", "1", "--name", "cannot-start", "--cpu", "50m", "--memory",
                           "64Mi", "--retries", "1", "--wait", "--", "python3", "-c",
                           "import time; time.sleep(2); import kftrain_no_such_module"});
    INFO(run.out << run.err);
    CHECK(run.code == 1);  // Failed, with nothing but the budget to stop it

    auto status = ns.kftrain({"status", "cannot-start", "-o", "json"});
    REQUIRE(status.code == 0);
    json doc = json::parse(status.out);
    CHECK(doc["state"] == "Failed");
    CHECK(doc["message"].get<std::string>().find("reached the specified backoff limit") !=
          std::string::npos);

    auto diagnosed = ns.kftrain({"diagnose", "cannot-start", "-o", "json"});
    INFO(diagnosed.out << diagnosed.err);
    REQUIRE(diagnosed.code == 0);
    json d = json::parse(diagnosed.out);
    CHECK(d["crashLoop"].is_object());
    CHECK(d["why"].get<std::string>().rfind("crash loop: each of master-0's ", 0) == 0);
    CHECK(d["why"].get<std::string>().find(
              "ModuleNotFoundError: No module named 'kftrain_no_such_module'") !=
          std::string::npos);
}

TEST_CASE("a TrainJob's budget is a TrainingRuntime the API server takes, owned and reused",
          "[e2e]") {
    Namespace ns("budget");
    const std::string suspended = "runPolicy:\n  suspend: true\n";  // no pods needed
    for (const char* name : {"first", "second"}) {
        auto file = kftrain::e2e::write_temp(
            "job.yaml", kftrain::e2e::trainer_job(name, "TrainJob", 2, suspended));
        auto dry = ns.kftrain({"submit", "-f", file, "--retries", "2", "--dry-run=server"});
        INFO(dry.out << dry.err);
        CHECK(dry.code == 0);
        ns.submit(kftrain::e2e::trainer_job(name, "TrainJob", 2, suspended), {"--retries", "2"});
    }
    auto runtimes = ns.kubectl({"get", "trainingruntimes.trainer.kubeflow.org", "-o", "json"});
    REQUIRE(runtimes.code == 0);
    json items = json::parse(runtimes.out)["items"];
    REQUIRE(items.size() == 1);  // the same budget: one runtime, both jobs its owners
    const json& runtime = items[0];
    CHECK(runtime["spec"]["template"]["spec"]["failurePolicy"]["maxRestarts"] == 2);
    CHECK(runtime["metadata"]["ownerReferences"].size() == 2);
    for (const char* name : {"first", "second"}) {
        auto job = ns.kubectl({"get", "trainjobs.trainer.kubeflow.org", name, "-o", "json"});
        REQUIRE(job.code == 0);
        json tj = json::parse(job.out);
        CHECK(tj["spec"]["runtimeRef"]["kind"] == "TrainingRuntime");
        CHECK(tj["spec"]["runtimeRef"]["name"] == runtime["metadata"]["name"]);
    }
}
