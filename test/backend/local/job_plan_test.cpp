#include "backend/local/job_plan.h"

#include <catch2/catch.hpp>

#include "backend/local/state/job_state.h"
#include "manifest/render/render.h"

using kftrain::backend::local::job_state_from_json;
using kftrain::backend::local::JobState;
using kftrain::backend::local::plan_job;
using kftrain::backend::local::PlanContext;
using kftrain::backend::local::Ports;
using kftrain::backend::local::to_json;

namespace {

kftrain::manifest::JobSpec trainer_job() {
    kftrain::manifest::JobSpec spec;
    spec.name = "plan";
    spec.replicas = 3;
    spec.restart_policy = "ExitCode";
    spec.run_policy.backoff_limit = 4;
    spec.trainer = {{"dataDir", "/data/mnist"}, {"epochs", "2"}};
    spec.volumes.resize(1);
    spec.volumes[0].name = "data";
    spec.volumes[0].mount_path = "/data";
    spec.volumes[0].local_path = "/srv/datasets";
    return spec;
}

// Render a job with the built-in template, as submit does.
kftrain::job::RenderedJob rendered(
    const kftrain::manifest::JobSpec& spec,
    const std::optional<kftrain::manifest::Template>& tmpl = std::nullopt) {
    auto manifest = kftrain::manifest::render_job(
        spec, tmpl ? *tmpl : kftrain::manifest::default_template(spec.kind));
    REQUIRE(manifest.ok());
    return {spec, *manifest, std::nullopt, YAML::Node()};
}

PlanContext context() {
    // sh stands in for kftrain-trainer: it is on PATH, and not beside any kftrain here.
    return PlanContext{"/nonexistent", "/work/job", Ports{29600, 29601}, "2026-11-22T05:00:00Z"};
}

}  // namespace

TEST_CASE("plan_job gives every replica the container's command with mapped paths", "[local]") {
    auto spec = trainer_job();
    spec.command = {"sh"};
    spec.args = std::vector<std::string>{"-c", "true", "/data/mnist"};
    auto state = plan_job(rendered(spec), context());
    REQUIRE(state.ok());
    CHECK(state->phase == "Created");
    CHECK(state->restart_policy == "ExitCode");
    CHECK(state->backoff_limit == 4);
    CHECK(state->master_port == 29600);
    CHECK(state->cwd == "/work/job");
    REQUIRE(state->replicas.size() == 3);
    for (const auto& replica : state->replicas) {
        REQUIRE(replica.argv.size() == 4);
        CHECK(replica.argv[0].find("/sh") != std::string::npos);
        CHECK(replica.argv[3] == "/srv/datasets/mnist");
        CHECK(replica.env.at("RANK") == std::to_string(replica.rank));
    }
    CHECK(state->replicas[2].name == "worker-1");
    CHECK(state->replicas[2].env.at("RANK") == "2");
}

TEST_CASE("plan_job refuses a trainer that is neither beside kftrain nor on PATH", "[local]") {
    auto spec = trainer_job();
    spec.command = {"kftrain-trainer-that-is-not-there"};
    auto state = plan_job(rendered(spec), context());
    REQUIRE_FALSE(state.ok());
    CHECK(state.error_code(0) == 2);
}

TEST_CASE("state.json keeps every field through a write and read", "[local]") {
    auto spec = trainer_job();
    spec.command = {"sh"};
    auto planned = plan_job(rendered(spec), context());
    REQUIRE(planned.ok());
    JobState state = *planned;
    state.supervisor_pid = 77;
    state.replicas[1].exit_code = 137;
    state.replicas[1].restarts = 2;
    state.last_progress = R"({"event":"progress"})";
    auto back = job_state_from_json(to_json(state));
    REQUIRE(back.ok());
    CHECK(to_json(*back) == to_json(state));
    CHECK(back->replicas[1].exit_code == 137);
    CHECK_FALSE(job_state_from_json(nlohmann::json{{"name", "x"}}).ok());
}

TEST_CASE("plan_job runs what the rendered manifest says, not the job file", "[local]") {
    auto spec = trainer_job();
    spec.command = {"sh"};
    spec.args = std::vector<std::string>{"-c", "true"};
    spec.env["OMP_NUM_THREADS"] = {"1", "", ""};
    spec.env["TOKEN"] = {"", "creds", "token"};
    spec.mlflow.tracking_uri = "http://mlflow:5000";
    auto job = rendered(spec);
    // What a custom template or a cluster-side tweak would change: args and env of the Worker.
    YAML::Node worker =
        job.manifest["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0];
    worker["args"].push_back("/data/worker-only");
    YAML::Node extra;
    extra["name"] = "FROM_TEMPLATE";
    extra["value"] = "yes";
    worker["env"].push_back(extra);
    YAML::Node rank;
    rank["name"] = "RANK";
    rank["value"] = "99";  // the operator's RANK wins, as in the pod
    worker["env"].push_back(rank);

    auto state = plan_job(job, context());
    REQUIRE(state.ok());
    const auto& master = state->replicas[0];
    const auto& worker0 = state->replicas[1];
    CHECK(master.argv.size() == 3);
    REQUIRE(worker0.argv.size() == 4);
    CHECK(worker0.argv[3] == "/srv/datasets/worker-only");
    CHECK(master.env.count("FROM_TEMPLATE") == 0);
    CHECK(worker0.env.at("FROM_TEMPLATE") == "yes");
    CHECK(worker0.env.at("RANK") == "1");
    CHECK(master.env.at("OMP_NUM_THREADS") == "1");
    CHECK(master.env.at("MLFLOW_TRACKING_URI") == "http://mlflow:5000");
    CHECK(master.env.count("TOKEN") == 0);  // a Secret reference is not set locally
}

TEST_CASE("plan_job refuses a manifest whose container it cannot run, naming the path", "[local]") {
    auto spec = trainer_job();
    spec.command = {"sh"};
    auto job = rendered(spec);
    job.manifest["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
                ["name"] = "sidecar";
    auto state = plan_job(job, context());
    REQUIRE_FALSE(state.ok());
    CHECK(state.error() ==
          "spec.pytorchReplicaSpecs.Master.template.spec.containers: no container named pytorch");
    CHECK(state.error_code(0) == 2);
}
