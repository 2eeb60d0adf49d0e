// trainer.metricsPort in rendered jobs: the container port, the scrape annotations, the job's
// name for the trainer's labels, and the PodMonitor of `render --pod-monitor`.
#include "manifest/render/metrics_scrape.h"

#include <catch2/catch.hpp>

#include "manifest/load.h"
#include "manifest/render/render.h"
#include "manifest/yaml/emit.h"
#include "support/cli_runner.h"
#include "support/crd_schema.h"
#include "support/files.h"
#include "support/jobs.h"
#include "support/paths.h"

using namespace kftrain;
using nlohmann::json;

namespace {

bool has_env(const json& container, const std::string& name, const std::string& value) {
    for (const auto& env : container.value("env", json::array())) {
        if (env["name"] == name && env.value("value", "") == value) {
            return true;
        }
    }
    return false;
}

const std::string k_scraped_job = "name: scraped\ntrainer: {metricsPort: 9400}\n";

}  // namespace

TEST_CASE("a PyTorchJob with trainer.metricsPort declares the port and asks to be scraped",
          "[manifest]") {
    const auto doc = test::render_json(
        test::load_job(k_scraped_job, test::set_flags({}, manifest::JobKind::PyTorchJob)));
    for (const char* type : {"Master", "Worker"}) {
        INFO(type);
        const auto& pod = doc["spec"]["pytorchReplicaSpecs"][type]["template"];
        const auto& container = pod["spec"]["containers"][0];
        CHECK(container["ports"] == json::parse(R"([
            {"name": "pytorchjob-port", "containerPort": 23456, "protocol": "TCP"},
            {"name": "metrics", "containerPort": 9400, "protocol": "TCP"}])"));
        CHECK(pod["metadata"]["annotations"] == json::parse(R"({"prometheus.io/scrape": "true",
            "prometheus.io/port": "9400", "prometheus.io/path": "/metrics"})"));
        CHECK(has_env(container, "KFTRAIN_JOB_NAME", "scraped"));
        const auto args = container["args"].dump();
        CHECK(args.find(R"("--metrics-port","9400")") != std::string::npos);
    }
    // The job itself carries the user's annotations only.
    CHECK_FALSE(doc["metadata"].contains("annotations"));
    std::string crd = kftrain::test::pytorchjob_crd_file();
    REQUIRE(test::crd_readable(crd));
    CHECK(test::check_against_crd(doc, crd) == std::vector<std::string>{});
}

TEST_CASE("a job file's own prometheus.io annotations win over the ones kftrain adds",
          "[manifest]") {
    const auto doc = test::render_json(
        test::load_job(k_scraped_job + "annotations: {prometheus.io/scrape: \"false\"}\n",
                       test::set_flags({}, manifest::JobKind::PyTorchJob)));
    const auto& annotations =
        doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["metadata"]["annotations"];
    CHECK(annotations["prometheus.io/scrape"] == "false");
    CHECK(annotations["prometheus.io/port"] == "9400");
}

TEST_CASE("a TrainJob with trainer.metricsPort annotates its node pods through runtimePatches",
          "[manifest]") {
    const auto doc = test::render_json(
        test::load_job(k_scraped_job, test::set_flags({}, manifest::JobKind::TrainJob)));
    const auto& pod = doc["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]
                         ["replicatedJobs"][0]["template"]["spec"]["template"];
    CHECK(pod["metadata"]["annotations"]["prometheus.io/port"] == "9400");
    CHECK(has_env(doc["spec"]["trainer"], "KFTRAIN_JOB_NAME", "scraped"));
    std::string crd = kftrain::test::trainjob_crd_file();
    REQUIRE(test::crd_readable(crd));
    CHECK(test::check_against_crd(doc, crd) == std::vector<std::string>{});
}

TEST_CASE("without trainer.metricsPort nothing is scraped", "[manifest]") {
    const auto plain =
        test::load_job("name: a\n", test::set_flags({}, manifest::JobKind::PyTorchJob));
    CHECK(plain.metrics_port() == 0);
    const auto doc = test::render_json(plain);
    const auto& pod = doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"];
    CHECK_FALSE(pod.value("metadata", nlohmann::json::object()).contains("annotations"));
    CHECK(pod["spec"]["containers"][0]["ports"].size() == 1);
    CHECK_FALSE(has_env(pod["spec"]["containers"][0], "KFTRAIN_JOB_NAME", "a"));
}

TEST_CASE("the PodMonitor selects the job's pods by the label kftrain puts on them", "[manifest]") {
    const auto pytorch = manifest::to_json(manifest::pod_monitor(
        test::load_job(k_scraped_job, test::set_flags({}, manifest::JobKind::PyTorchJob))));
    CHECK(pytorch["apiVersion"] == "monitoring.coreos.com/v1");
    CHECK(pytorch["kind"] == "PodMonitor");
    CHECK(pytorch["spec"]["selector"]["matchLabels"]["kftrain.io/job-name"] == "scraped");
    const auto& endpoint = pytorch["spec"]["podMetricsEndpoints"][0];
    CHECK(endpoint["port"] == "metrics");
    CHECK(endpoint["path"] == "/metrics");
    CHECK(endpoint["honorLabels"] == true);
    // A TrainJob's runtime declares no metrics port: the target is the pod's address.
    const auto trainjob = manifest::to_json(manifest::pod_monitor(
        test::load_job(k_scraped_job, test::set_flags({}, manifest::JobKind::TrainJob))));
    const auto& v2 = trainjob["spec"]["podMetricsEndpoints"][0];
    CHECK_FALSE(v2.contains("port"));
    CHECK(v2["relabelings"][1]["targetLabel"] == "__address__");
    CHECK(v2["relabelings"][1]["replacement"] == "$1:9400");
    CHECK(v2["relabelings"][2]["replacement"] == "[$1]:9400");  // an IPv6 pod
}

TEST_CASE("with several trainer processes per pod, each local rank gets its own metrics port",
          "[manifest]") {
    const auto spec =
        test::load_job("name: scraped\nnprocPerNode: \"2\"\ntrainer: {metricsPort: 9400}\n",
                       test::set_flags({}, manifest::JobKind::PyTorchJob));
    const auto doc = test::render_json(spec);
    const auto& ports =
        doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["ports"];
    REQUIRE(ports.size() == 3);
    CHECK(ports[1]["name"] == "metrics");
    CHECK(ports[2]["name"] == "metrics-1");
    CHECK(ports[2]["containerPort"] == 9401);
    const auto monitor = manifest::to_json(manifest::pod_monitor(spec));
    REQUIRE(monitor["spec"]["podMetricsEndpoints"].size() == 2);
    CHECK(monitor["spec"]["podMetricsEndpoints"][1]["port"] == "metrics-1");
    // A TrainJob runs its CPUs' worth of processes with numProcPerNode auto: one endpoint each.
    const auto v2 = manifest::to_json(manifest::pod_monitor(
        test::load_job("name: scraped\nresources: {cpu: \"3\"}\ntrainer: {metricsPort: 9400}\n",
                       test::set_flags({}, manifest::JobKind::TrainJob))));
    REQUIRE(v2["spec"]["podMetricsEndpoints"].size() == 3);
    CHECK(v2["spec"]["podMetricsEndpoints"][2]["relabelings"][1]["replacement"] == "$1:9402");
}

TEST_CASE("a metrics port that cannot work is refused, naming the key and the value",
          "[manifest]") {
    manifest::Overrides overrides;
    const auto refused = [&](const std::string& text) {
        auto job = manifest::load_job_text(text, "job.yaml", overrides);
        REQUIRE_FALSE(job.ok());
        return job.error();
    };
    // The master's rendezvous port, also when a later local rank's port reaches it.
    CHECK_THAT(refused("name: a\ntrainer: {metricsPort: 23456}\n"),
               Catch::Contains("trainer.metricsPort") && Catch::Contains("23456"));
    CHECK_THAT(refused("name: a\nnprocPerNode: \"4\"\ntrainer: {metricsPort: 29497}\n"),
               Catch::Contains("29500") && Catch::Contains("29497 to 29500"));
    CHECK_THAT(refused("name: a\nnprocPerNode: \"2\"\ntrainer: {metricsPort: 65535}\n"),
               Catch::Contains("at most 65535"));
    // With args of its own the trainer never gets the flag.
    CHECK_THAT(refused("name: a\nargs: [--epochs, \"1\"]\ntrainer: {metricsPort: 9400}\n"),
               Catch::Contains("trainer.metricsPort") && Catch::Contains("args"));
}

TEST_CASE(
    "render --pod-monitor prints the job and its PodMonitor, or refuses a job without "
    "metrics",
    "[manifest][cli]") {
    const std::string dir = test::make_temp_dir();
    test::write_file(dir + "/job.yaml", k_scraped_job);
    auto yaml = test::run_kftrain({"render", "-f", dir + "/job.yaml", "--pod-monitor"});
    REQUIRE(yaml.code == 0);
    CHECK(yaml.out.find("kind: PyTorchJob") < yaml.out.find("\n---\n"));
    CHECK(yaml.out.find("kind: PodMonitor") > yaml.out.find("\n---\n"));
    auto list = test::run_kftrain(
        {"render", "-f", dir + "/job.yaml", "--pod-monitor", "--kind", "TrainJob", "-o", "json"});
    REQUIRE(list.code == 0);
    const auto items = json::parse(list.out)["items"];
    REQUIRE(items.size() == 2);
    CHECK(items[0]["kind"] == "TrainJob");
    CHECK(items[1]["kind"] == "PodMonitor");
    // A template of the user's own without the metrics port: the PodMonitor would find nothing.
    const std::string own_template = dir + "/own.yaml";
    auto builtin =
        test::read_bytes(std::string(kftrain::test::source_dir()) + "/templates/pytorchjob.yaml");
    for (auto at = builtin.find("ports: \"{{ ports }}\""); at != std::string::npos;
         at = builtin.find("ports: \"{{ ports }}\"")) {
        builtin.replace(at, std::string("ports: \"{{ ports }}\"").size(), "ports: []");
    }
    test::write_file(own_template, builtin);
    auto no_port = test::run_kftrain(
        {"render", "-f", dir + "/job.yaml", "--pod-monitor", "--template", own_template});
    CHECK(no_port.code == 2);
    CHECK(no_port.out.empty());
    CHECK(no_port.err.find("--template " + own_template) != std::string::npos);
    test::write_file(dir + "/plain.yaml", "name: plain\n");
    auto refused = test::run_kftrain({"render", "-f", dir + "/plain.yaml", "--pod-monitor"});
    CHECK(refused.code == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err.find("--pod-monitor") != std::string::npos);
    CHECK(refused.err.find("trainer.metricsPort") != std::string::npos);
}

TEST_CASE("a program of your own gets its metrics port, path and KFTRAIN_METRICS_PORT",
          "[manifest]") {
    const auto spec = test::load_job(
        "name: own\ncommand: [python3, train.py]\n"
        "metrics: {port: 8000, path: /stats}\n",
        test::set_flags({}, manifest::JobKind::PyTorchJob));
    CHECK(spec.metrics_port() == 8000);
    const auto doc = test::render_json(spec);
    const auto& pod = doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"];
    CHECK(pod["metadata"]["annotations"]["prometheus.io/path"] == "/stats");
    CHECK(pod["spec"]["containers"][0]["ports"][1]["containerPort"] == 8000);
    CHECK(has_env(pod["spec"]["containers"][0], "KFTRAIN_METRICS_PORT", "8000"));
    const auto monitor = manifest::to_json(manifest::pod_monitor(spec));
    REQUIRE(monitor["spec"]["podMetricsEndpoints"].size() == 1);
    CHECK(monitor["spec"]["podMetricsEndpoints"][0]["path"] == "/stats");
    std::string crd = kftrain::test::pytorchjob_crd_file();
    REQUIRE(test::crd_readable(crd));
    CHECK(test::check_against_crd(doc, crd) == std::vector<std::string>{});
    // The trainer has its own key; a path must be a path.
    manifest::Overrides overrides;
    auto trainer =
        manifest::load_job_text("name: a\nmetrics: {port: 8000}\n", "job.yaml", overrides);
    REQUIRE_FALSE(trainer.ok());
    CHECK_THAT(trainer.error(),
               Catch::Contains("metrics.port") && Catch::Contains("trainer.metricsPort"));
    auto path = manifest::load_job_text(
        "name: a\ncommand: [python3]\nmetrics: {port: 8000, path: stats}\n", "job.yaml", overrides);
    REQUIRE_FALSE(path.ok());
    CHECK_THAT(path.error(), Catch::Contains("metrics.path") && Catch::Contains("stats"));
}
