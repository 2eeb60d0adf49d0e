#include <catch2/catch.hpp>

#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/jobs.h"
#include "support/paths.h"
#include "support/test_data.h"

using namespace kftrain;
using nlohmann::json;

namespace {

manifest::Overrides queued(manifest::JobKind kind, const std::string& queue,
                           const std::string& priority_class = "") {
    manifest::Overrides overrides;
    overrides.kind = kind;
    overrides.queue = queue;
    if (!priority_class.empty()) {
        overrides.priority_class = priority_class;
    }
    return overrides;
}

}  // namespace

TEST_CASE("a queued PyTorchJob renders suspended with Kueue's labels (golden)",
          "[manifest][kueue][golden]") {
    auto spec = test::load_job(test::read_example("mnist-ddp.yaml"),
                               queued(manifest::JobKind::PyTorchJob, "team-a", "high"));
    CHECK(
        test::matches_golden("mnist-ddp-queued.yaml", manifest::to_yaml(test::render_yaml(spec))));
}

TEST_CASE("a queued TrainJob renders suspended with Kueue's labels (golden)",
          "[manifest][kueue][golden]") {
    auto spec = test::load_job(test::read_example("mnist-ddp.yaml"),
                               queued(manifest::JobKind::TrainJob, "team-a", "high"));
    CHECK(test::matches_golden("mnist-trainjob-queued.yaml",
                               manifest::to_yaml(test::render_yaml(spec))));
}

TEST_CASE("queue labels the job, not its pods, and suspends it for both kinds",
          "[manifest][kueue]") {
    for (auto kind : {manifest::JobKind::PyTorchJob, manifest::JobKind::TrainJob}) {
        INFO(manifest::kind_name(kind));
        json doc = manifest::to_json(test::render_yaml(test::load_job(
            "name: a\nqueue: team-a\npriorityClass: high\n", queued(kind, "team-a"))));
        CHECK(doc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a");
        CHECK(doc["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "high");
        const std::string text = doc.dump();
        // Once on the job's labels only: pods labelled for Kueue would be queued on their own.
        CHECK(text.find("kueue.x-k8s.io/queue-name") == text.rfind("kueue.x-k8s.io/queue-name"));
        if (kind == manifest::JobKind::PyTorchJob) {
            CHECK(doc["spec"]["runPolicy"]["suspend"] == true);
        } else {
            CHECK(doc["spec"]["suspend"] == true);
        }
    }
}

TEST_CASE("queue in the job file works as --queue does, and --queue overrides it",
          "[manifest][kueue]") {
    auto from_file = test::load_job("name: a\nqueue: team-a\n");
    CHECK(from_file.queue == "team-a");
    manifest::Overrides flag;
    flag.queue = "team-b";
    CHECK(test::load_job("name: a\nqueue: team-a\n", flag).queue == "team-b");
}

TEST_CASE("without a queue nothing Kueue's is rendered and Volcano's queue stays apart",
          "[manifest][kueue]") {
    json plain = test::render_json(test::load_job("name: a\n"));
    CHECK(plain.dump().find("kueue.x-k8s.io") == std::string::npos);
    CHECK_FALSE(plain["spec"].contains("runPolicy"));

    json volcano = manifest::to_json(test::render_yaml(
        test::load_job("name: a\nrunPolicy:\n  schedulingPolicy:\n    queue: research\n")));
    CHECK(volcano["spec"]["runPolicy"]["schedulingPolicy"]["queue"] == "research");
    CHECK_FALSE(volcano["spec"]["runPolicy"].contains("suspend"));
    CHECK(volcano.dump().find("kueue.x-k8s.io") == std::string::npos);

    json both = test::render_json(test::load_job(
        "name: a\nqueue: team-a\nrunPolicy:\n  schedulingPolicy:\n    queue: research\n"));
    CHECK(both["spec"]["runPolicy"]["schedulingPolicy"]["queue"] == "research");
    CHECK(both["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a");
    CHECK(both["spec"]["runPolicy"]["suspend"] == true);
}

TEST_CASE("queued jobs are valid against the Training Operator and Trainer CRDs",
          "[manifest][kueue]") {
    const std::pair<manifest::JobKind, std::string> crds[] = {
        {manifest::JobKind::PyTorchJob, kftrain::test::pytorchjob_crd_file()},
        {manifest::JobKind::TrainJob, kftrain::test::trainjob_crd_file()}};
    for (const auto& [kind, crd] : crds) {
        if (!test::crd_readable(crd)) {
            continue;
        }
        INFO(manifest::kind_name(kind));
        json doc = test::render_json(
            test::load_job(test::read_example("mnist-ddp.yaml"), queued(kind, "team-a", "high")));
        CHECK(test::check_against_crd(doc, crd) == std::vector<std::string>{});
    }
}

TEST_CASE("bad queue and priority class names are refused, naming the field or flag",
          "[manifest][kueue]") {
    const std::string subdomain =
        "a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' and '.', starting and "
        "ending with a letter or digit";
    struct Case {
        const char* what;
        std::string text;
        manifest::Overrides overrides;
        std::string message;
    };
    manifest::Overrides bad_flag;
    bad_flag.queue = "Team_A";
    manifest::Overrides bad_priority;
    bad_priority.queue = "team-a";
    bad_priority.priority_class = "-high";
    manifest::Overrides priority_alone;
    priority_alone.priority_class = "high";
    const Case cases[] = {
        {"--queue", "name: a\n", bad_flag,
         "--queue: must name a LocalQueue: " + subdomain + " (got Team_A)"},
        {"queue in the file",
         "name: a\nqueue: team.a.\n",
         {},
         "job.yaml:2: queue: must name a LocalQueue: " + subdomain + " (got team.a.)"},
        {"--priority-class", "name: a\n", bad_priority,
         "--priority-class: must name a WorkloadPriorityClass: " + subdomain + " (got -high)"},
        {"a queue name longer than a label value",
         "name: a\nqueue: " + std::string(64, 'q') + "\n",
         {},
         "job.yaml:2: queue: must be a label value: at most 63 letters, digits, '-', '_' or "
         "'.', starting and ending with a letter or digit (got " +
             std::string(64, 'q') + ")"},
        {"--priority-class without a queue", "name: a\n", priority_alone,
         "--priority-class: needs queue (--queue): Kueue reads the priority class of queued "
         "jobs only (got high)"},
        {"Kueue's label by hand",
         "name: a\nlabels:\n  kueue.x-k8s.io/queue-name: team-a\n",
         {},
         "job.yaml:3: labels.\"kueue.x-k8s.io/queue-name\": set by queue (queue: and "
         "priorityClass: in the job file, or --queue and --priority-class), not by labels "
         "(got team-a)"},
    };
    for (const auto& c : cases) {
        INFO(c.what);
        auto loaded = test::try_load_job(c.text, c.overrides);
        REQUIRE_FALSE(loaded);
        CHECK(loaded.error() == c.message);
    }
}
