#include "manifest/render/render.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "manifest/load.h"
#include "manifest/starter.h"
#include "manifest/yaml/emit.h"
#include "support/crd_schema.h"
#include "support/jobs.h"
#include "support/paths.h"
#include "support/test_data.h"

using namespace kftrain;

TEST_CASE("render of the example job matches the golden PyTorchJob", "[manifest]") {
    YAML::Node doc = test::render_yaml(test::load_job(test::read_example("mnist-ddp.yaml")));
    CHECK(test::matches_golden("mnist-ddp.yaml", manifest::to_yaml(doc)));
    CHECK(test::matches_golden("mnist-ddp.json", manifest::to_json(doc).dump(2) + "\n"));
}

TEST_CASE("render puts Worker replicas at replicas-1 and drops Worker for one replica",
          "[manifest]") {
    nlohmann::json four = test::render_json(test::load_job(test::read_example("mnist-ddp.yaml")));
    CHECK(four["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] == 1);
    CHECK(four["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] == 3);

    nlohmann::json one = test::render_json(test::load_job("name: solo\nreplicas: 1\n"));
    CHECK(one["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] == 1);
    CHECK_FALSE(one["spec"]["pytorchReplicaSpecs"].contains("Worker"));
}

TEST_CASE("rendered jobs are valid against the Training Operator v1.9 CRD", "[manifest]") {
    std::string crd = kftrain::test::pytorchjob_crd_file();
    if (!test::crd_readable(crd)) {
        return;
    }
    const std::vector<std::pair<std::string, manifest::JobSpec>> jobs = {
        {"example", test::load_job(test::read_example("mnist-ddp.yaml"))},
        {"minimal", test::load_job("name: a\n")},
        {"single replica", test::load_job("name: a\nreplicas: 1\n")},
        {"elastic",
         test::load_job(
             "name: a\nreplicas: 3\nnprocPerNode: auto\nelasticPolicy:\n  minReplicas: 2\n"
             "  maxReplicas: 4\n  maxRestarts: 3\n  rdzvBackend: c10d\n")},
        {"custom command",
         test::load_job("name: a\ncommand: [python, train.py]\nargs: ['--epochs', '3']\n"
                        "resources:\n  gpus: 2\nrunPolicy:\n  suspend: true\n")},
    };
    for (const auto& [what, spec] : jobs) {
        INFO(what);
        auto problems = test::check_against_crd(test::render_json(spec), crd);
        CHECK(problems == std::vector<std::string>{});
    }
}

TEST_CASE("a value with a newline stays one string and cannot add a key", "[manifest]") {
    auto spec = test::load_job("name: a\nimage: \"x\\nevil: true\"\nlabels:\n  team: a\n");
    YAML::Node doc = test::render_yaml(spec);
    std::string yaml = manifest::to_yaml(doc);
    YAML::Node reread = YAML::Load(yaml);
    YAML::Node container =
        reread["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0];
    CHECK(container["image"].as<std::string>() == "x\nevil: true");
    CHECK_FALSE(container["evil"].IsDefined());
}

TEST_CASE("strings that look like numbers or booleans stay strings", "[manifest]") {
    auto spec =
        test::load_job("name: a\nimage: \"true\"\nenv:\n  SEED: \"42\"\n  DEBUG: \"yes\"\n");
    nlohmann::json doc = manifest::to_json(YAML::Load(manifest::to_yaml(test::render_yaml(spec))));
    nlohmann::json container =
        doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0];
    CHECK(container["image"] == "true");
    CHECK(container["env"][0] == nlohmann::json{{"name", "DEBUG"}, {"value", "yes"}});
    CHECK(container["env"][1] == nlohmann::json{{"name", "SEED"}, {"value", "42"}});
}

TEST_CASE("the trainer section becomes flags with --log-format json", "[manifest]") {
    auto spec =
        test::load_job("name: a\ntrainer:\n  batchSize: 32\n  epochs: 2\n  checkpointDir: /ck\n");
    nlohmann::json doc = test::render_json(spec);
    nlohmann::json container =
        doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0];
    CHECK(container["command"] == nlohmann::json{"kftrain-trainer"});
    CHECK(container["args"] == nlohmann::json{"--epochs", "2", "--batch-size", "32",
                                              "--checkpoint-dir", "/ck", "--log-format", "json"});
    auto comm = test::load_job(
        "name: a\ntrainer:\n  bucketMb: 2.5\n  gradCompression: fp16\n  memoryFormat: "
        "contiguous\n");
    nlohmann::json comm_doc = test::render_json(comm);
    CHECK(comm_doc["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
                  ["args"] ==
          nlohmann::json{"--grad-compression", "fp16", "--bucket-mb", "2.5", "--memory-format",
                         "contiguous", "--log-format", "json"});
}

TEST_CASE("templates fail on unknown placeholders and fill placeholders inside strings",
          "[manifest]") {
    auto spec = test::load_job("name: demo\n");
    manifest::Template bad{"kind: PyTorchJob\nmetadata:\n  name: \"{{ nmae }}\"\n", "t.yaml"};
    auto failed = manifest::render_job(spec, bad);
    REQUIRE_FALSE(failed);
    CHECK(failed.error() == "t.yaml:3: unknown placeholder {{ nmae }} (did you mean name?)");

    manifest::Template inline_tmpl = manifest::default_template(manifest::JobKind::PyTorchJob);
    const std::string name_line = "name: \"{{ name }}\"";
    inline_tmpl.text.replace(inline_tmpl.text.find(name_line), name_line.size(),
                             "name: \"{{ name }}-v2\"");
    auto rendered = manifest::render_job(spec, inline_tmpl);
    REQUIRE(rendered);
    CHECK((*rendered)["metadata"]["name"].as<std::string>() == "demo-v2");
    CHECK((*rendered)["metadata"]["labels"]["kftrain.io/job-name"].as<std::string>() == "demo");
}

TEST_CASE("the CRD check itself catches a misspelt field and a wrong type", "[manifest]") {
    std::string crd = kftrain::test::pytorchjob_crd_file();
    if (!test::crd_readable(crd)) {
        return;
    }
    nlohmann::json doc = test::render_json(test::load_job("name: a\n"));
    doc["spec"]["runPolicy"] = {{"backofLimit", 3}};
    doc["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] = "1";
    auto problems = test::check_against_crd(doc, crd);
    CHECK(problems ==
          std::vector<std::string>{
              ".spec.pytorchReplicaSpecs.Master.replicas: expected an integer, got \"1\"",
              ".spec.runPolicy.backofLimit: unknown field"});
}

TEST_CASE("docs/job-file.md's job-file table is the one kftrain init --reference prints",
          "[manifest]") {
    std::string page = test::read_test_data("../../docs/job-file.md");
    std::string begin = "<!-- job-file-reference:begin -->\n";
    auto start = page.find(begin);
    auto end = page.find("<!-- job-file-reference:end -->");
    REQUIRE(start != std::string::npos);
    REQUIRE(end != std::string::npos);
    start += begin.size();
    CHECK(page.substr(start, end - start) == manifest::job_file_reference());
}

TEST_CASE("numbers beyond 64 bits or a double's range become JSON without a crash", "[manifest]") {
    // A template may hold any YAML number; stoll threw on 20 digits and aborted -o json.
    auto doc = YAML::Load(
        "big: 99999999999999999999999\nhuge: 1e999\nsmall: -12\nplus: +7\n"
        "inf: -.Inf\nf: 0.5\n");
    auto json = manifest::to_json(doc);
    CHECK(json["big"].get<double>() == Approx(1e23));
    CHECK(json["huge"].dump() == "null");  // infinite: JSON has no such number
    CHECK(json["small"] == -12);
    CHECK(json["plus"] == 7);
    CHECK(json["inf"].dump() == "null");
    CHECK(json["f"] == 0.5);
}
