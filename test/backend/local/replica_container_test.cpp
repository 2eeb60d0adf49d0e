#include "backend/local/process/replica_container.h"

#include <catch2/catch.hpp>

#include "manifest/code.h"
#include "manifest/render/render.h"
#include "support/jobs.h"

using kftrain::backend::local::ignored_settings;
using kftrain::backend::local::read_replica_containers;

namespace {

kftrain::manifest::JobSpec two_replica_spec() {
    kftrain::manifest::JobSpec spec;
    spec.name = "containers";
    spec.replicas = 2;
    spec.image = "kftrain/trainer:0.1.0";
    spec.command = {"sh"};
    spec.args = std::vector<std::string>{"-c", "true"};
    return spec;
}

}  // namespace

TEST_CASE("each replica type's pytorch container is read from the manifest", "[local]") {
    auto spec = two_replica_spec();
    spec.env["PLAIN"] = {"1", "", ""};
    spec.env["TOKEN"] = {"", "creds", "token"};
    auto containers = read_replica_containers(kftrain::test::render_yaml(spec));
    REQUIRE(containers.ok());
    REQUIRE(containers->size() == 2);
    const auto& worker = containers->at("Worker");
    CHECK(worker.argv == std::vector<std::string>{"sh", "-c", "true"});
    CHECK(worker.env.at("PLAIN") == "1");
    CHECK(worker.env_not_set == std::vector<std::string>{"TOKEN"});
    CHECK(worker.image == "kftrain/trainer:0.1.0");
}

TEST_CASE("image, resources and volumes without localPath are reported as not applying",
          "[local]") {
    auto spec = two_replica_spec();
    spec.source.lines["image"] = 3;
    spec.resources.cpu = "4";
    spec.volumes.resize(2);
    spec.volumes[0].name = "data";
    spec.volumes[0].claim = "mnist";
    spec.volumes[0].mount_path = "/data";
    spec.volumes[1].name = "ckpt";
    spec.volumes[1].claim = "ckpt";
    spec.volumes[1].mount_path = "/ckpt";
    spec.volumes[1].local_path = "./ckpt";
    auto containers = read_replica_containers(kftrain::test::render_yaml(spec));
    REQUIRE(containers.ok());
    CHECK(ignored_settings(*containers, spec) ==
          std::vector<std::string>{"image kftrain/trainer:0.1.0", "resources",
                                   "volume data (no localPath)"});
}

TEST_CASE("an image and a code volume the user never set are not reported", "[local]") {
    auto spec = two_replica_spec();
    kftrain::manifest::Volume code;  // the volume kftrain adds for the code folder
    code.name = kftrain::manifest::k_code_volume;
    code.mount_path = "/code";
    auto containers = read_replica_containers(kftrain::test::render_yaml(spec));
    REQUIRE(containers.ok());
    (*containers)["Master"].mounts.push_back({kftrain::manifest::k_code_volume, "/code"});
    CHECK(ignored_settings(*containers, spec).empty());
}

TEST_CASE("a manifest the local backend cannot run is refused with its path", "[local]") {
    struct Case {
        const char* name;
        const char* yaml;
        const char* error;
    };
    const std::vector<Case> cases = {
        {"no replica specs", "spec: {}", "spec.pytorchReplicaSpecs: missing"},
        {"spec a scalar", "spec: 5", "spec.pytorchReplicaSpecs: missing"},
        {"replica spec a scalar", "spec: {pytorchReplicaSpecs: {Master: 3}}",
         "spec.pytorchReplicaSpecs.Master.template.spec.containers: missing"},
        {"no containers", "spec: {pytorchReplicaSpecs: {Master: {template: {spec: {}}}}}",
         "spec.pytorchReplicaSpecs.Master.template.spec.containers: missing"},
        {"no command",
         "spec: {pytorchReplicaSpecs: {Master: {template: {spec: {containers: "
         "[{name: pytorch, image: x}]}}}}}",
         "spec.pytorchReplicaSpecs.Master.template.spec.containers: the pytorch container has "
         "no command; locally it cannot run the image's entrypoint"},
        {"args not a list",
         "spec: {pytorchReplicaSpecs: {Worker: {template: {spec: {containers: "
         "[{name: pytorch, command: [sh], args: {a: b}}]}}}}}",
         "spec.pytorchReplicaSpecs.Worker.template.spec.containers.args: must be a list of "
         "strings"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        auto containers = read_replica_containers(YAML::Load(c.yaml));
        REQUIRE_FALSE(containers.ok());
        CHECK(containers.error() == c.error);
    }
}

TEST_CASE("a TrainJob's node container is its spec.trainer with the patched volume mounts",
          "[local]") {
    auto spec = two_replica_spec();
    spec.kind = kftrain::manifest::JobKind::TrainJob;
    spec.env["PLAIN"] = {"1", "", ""};
    spec.env["TOKEN"] = {"", "creds", "token"};
    spec.resources.cpu = "2";
    spec.source.from_flags["image"] = "--image";
    kftrain::manifest::Volume data;
    data.name = "data";
    data.claim = "mnist";
    data.mount_path = "/data";
    spec.volumes.push_back(data);
    auto containers = read_replica_containers(kftrain::test::render_yaml(spec));
    REQUIRE(containers.ok());
    REQUIRE(containers->size() == 1);
    const auto& node = containers->at("Node");
    CHECK(node.argv == std::vector<std::string>{"sh", "-c", "true"});
    CHECK(node.env.at("PLAIN") == "1");
    CHECK(node.env_not_set == std::vector<std::string>{"TOKEN"});
    CHECK(node.image == "kftrain/trainer:0.1.0");
    CHECK(node.has_resources);
    CHECK(node.mounts == std::vector<std::pair<std::string, std::string>>{{"data", "/data"}});
    CHECK(ignored_settings(*containers, spec) ==
          std::vector<std::string>{"image kftrain/trainer:0.1.0", "resources",
                                   "volume data (no localPath)"});

    YAML::Node no_command = kftrain::test::render_yaml(spec);
    no_command["spec"]["trainer"].remove("command");
    auto refused = read_replica_containers(no_command);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error() ==
          "spec.trainer.command: missing; locally the runtime's image entrypoint cannot run");
}

TEST_CASE("$(NAME) in an env value is expanded from the variables before it, as the kubelet does",
          "[local]") {
    auto spec = two_replica_spec();
    spec.env["A"] = {"hello", "", ""};
    spec.env["B"] = {"$(A)-world", "", ""};      // A comes first in the rendered list
    spec.env["C"] = {"$(Z) and $$(A)", "", ""};  // Z: not defined; $$: a literal $
    spec.env["Y"] = {"$(Z)", "", ""};            // Z comes after Y: left as written
    spec.env["Z"] = {"late", "", ""};
    auto containers = read_replica_containers(kftrain::test::render_yaml(spec));
    REQUIRE(containers.ok());
    const auto& env = containers->at("Worker").env;
    CHECK(env.at("B") == "hello-world");
    CHECK(env.at("C") == "$(Z) and $(A)");
    CHECK(env.at("Y") == "$(Z)");
    CHECK(env.at("Z") == "late");
}
