// A job that ships its folder (code) on the real cluster: the API server takes the ConfigMap
// and every kind with it, the kubelet mounts the files as a tree with their modes, the job is
// the ConfigMap's owner, and delete leaves no ConfigMap.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"
#include "support/files.h"

using kftrain::e2e::Namespace;
using kftrain::e2e::poll_until;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A project folder: a script in a subfolder that reads a config file from the working
// directory, as a user's train.py reads its config.yaml.
std::string make_project() {
    const std::string dir = kftrain::test::make_temp_dir();
    fs::create_directories(dir + "/proj/bin");
    kftrain::test::write_file(dir + "/proj/config.txt", "lr=0.25\n");
    kftrain::test::write_file(
        dir + "/proj/bin/run.sh",
        "#!/bin/sh\nread line < config.txt\necho \"config $line in $(pwd)\"\n");
    fs::permissions(dir + "/proj/bin/run.sh", fs::perms::owner_all | fs::perms::group_read |
                                                  fs::perms::group_exec | fs::perms::others_read |
                                                  fs::perms::others_exec);
    return dir;
}

std::string job_file(const std::string& dir, const std::string& kind) {
    const std::string path = dir + "/job.yaml";
    kftrain::test::write_file(path,
                              "name: shipped\nkind: " + kind +
                                  "\nreplicas: 2\nimage: " + kftrain::e2e::busybox_image() +
                                  "\nimagePullPolicy: Never\ncommand: [bin/run.sh]\n"
                                  "resources: {cpu: 100m, memory: 64Mi}\ncode:\n  path: proj\n");
    return path;
}

}  // namespace

TEST_CASE("submit --dry-run=server takes the code ConfigMap and every kind that mounts it",
          "[e2e]") {
    Namespace ns("codedry");
    const std::string dir = make_project();
    for (const char* kind : {"PyTorchJob", "TFJob", "XGBoostJob", "JAXJob", "TrainJob"}) {
        auto run = ns.kftrain({"submit", "-f", job_file(dir, kind), "--dry-run=server"});
        INFO(kind << "\n" << run.out << run.err);
        CHECK(run.code == 0);
    }
    CHECK(ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of", "-o", "name"}).out.empty());
}

TEST_CASE("a PyTorchJob runs the code it ships, owns its ConfigMap, and delete removes it",
          "[e2e]") {
    Namespace ns("code");
    const std::string dir = make_project();
    const std::string file = job_file(dir, "PyTorchJob");
    auto submitted = ns.kftrain({"submit", "-f", file});
    INFO(submitted.out << submitted.err);
    REQUIRE(submitted.code == 0);
    auto waited = ns.kftrain(
        {"wait", "shipped", "--for", "succeeded", "--timeout", "4m", "--interval", "1s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);

    auto logs = ns.kftrain({"logs", "shipped"});
    INFO(logs.out << logs.err);
    CHECK(has(logs.out, "config lr=0.25 in /workspace"));

    auto maps = ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of=shipped", "-o", "json"});
    REQUIRE(maps.code == 0);
    const json items = json::parse(maps.out)["items"];
    REQUIRE(items.size() == 1);
    const std::string name = items[0]["metadata"]["name"];
    CHECK(items[0]["metadata"]["ownerReferences"][0]["kind"] == "PyTorchJob");
    CHECK(items[0]["metadata"]["ownerReferences"][0]["name"] == "shipped");

    // A resubmit of the same files reuses the ConfigMap.
    auto again = ns.kftrain({"submit", "-f", file});
    INFO(again.out << again.err);
    CHECK(again.code == 0);
    auto names =
        ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of=shipped", "-o", "name"});
    CHECK(names.out == "configmap/" + name + "\n");

    auto deleted = ns.kftrain({"delete", "shipped", "--wait"});
    INFO(deleted.out << deleted.err);
    REQUIRE(deleted.code == 0);
    poll_until("the job's code ConfigMap to go", std::chrono::seconds(60), [&](std::string& last) {
        last = ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of", "-o", "name"}).out;
        return last.empty();
    });
}
