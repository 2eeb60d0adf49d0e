// A job that ships its folder (code) on the real cluster: the API server takes the ConfigMap
// and every kind with it, the kubelet mounts the files as a tree with their modes, the job is
// the ConfigMap's owner, and delete leaves no ConfigMap.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "e2e/cluster.h"
#include "support/files.h"
#include "support/paths.h"

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
                                  "\ncommand: [bin/run.sh]\n"
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
    // describe reads the code from the job the API server holds: its hash and file count.
    auto described = ns.kftrain({"describe", "shipped"});
    INFO(described.out << described.err);
    CHECK(has(described.out, "Code:"));
    CHECK(has(described.out, name.substr(name.size() - 10) + " (2 files), configmap/" + name));

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

namespace {

// A user's standard-library program in a folder: train.py reads config.json and imports
// lib/exchange.py; rank 1 sends rank 0 twice the config's value over TCP, found from the
// operator's environment (RANK, MASTER_ADDR, MASTER_PORT; a TrainJob's PET_* ones).
std::string make_python_project() {
    const std::string dir = kftrain::test::make_temp_dir();
    fs::create_directories(dir + "/proj/lib");
    kftrain::test::write_file(dir + "/proj/config.json", "{\"value\": 21}\n");
    kftrain::test::write_file(dir + "/proj/lib/exchange.py", R"(import socket
import time


def receive(port):
    with socket.create_server(("", port)) as server:
        server.settimeout(180)
        conn, _ = server.accept()
        with conn:
            return int(conn.recv(64).decode())


def send(addr, port, value):
    deadline = time.time() + 180
    while True:
        try:
            with socket.create_connection((addr, port), timeout=5) as conn:
                conn.sendall(str(value).encode())
                return
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)
)");
    kftrain::test::write_file(dir + "/proj/train.py", R"(import json
import os
import sys

from lib import exchange

config = json.load(open("config.json"))
env = os.environ
rank = int(env.get("RANK", env.get("PET_NODE_RANK", "0")))
addr = env.get("MASTER_ADDR", env.get("PET_MASTER_ADDR"))
port = int(env.get("MASTER_PORT", env.get("PET_MASTER_PORT", "0")))
if rank == 0:
    got = exchange.receive(port)
    print(f"rank 0 got {got} from rank 1; config value {config['value']}", flush=True)
    sys.exit(0 if got == 2 * config["value"] else 1)
exchange.send(addr, port, 2 * config["value"])
print(f"rank 1 sent {2 * config['value']}", flush=True)
)");
    kftrain::test::write_file(dir + "/proj/.kftrainignore", "*.log\n");
    kftrain::test::write_file(dir + "/proj/debug.log", "not shipped\n");
    return dir;
}

}  // namespace

TEST_CASE(
    "a Python program shipped as code finds its peer and trains as a PyTorchJob and a "
    "TrainJob, no image built",
    "[e2e]") {
    const std::string kind = GENERATE("PyTorchJob", "TrainJob");
    Namespace ns("pycode");
    const std::string dir = make_python_project();
    auto run = ns.kftrain({"run", "--kind", kind, "--replicas", "2", "--name", "exchange",
                           "--image", kftrain::e2e::python_image(), "--cpu", "100m", "--memory",
                           "64Mi", "--code", dir + "/proj", "--", "python3", "train.py"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    auto waited = ns.kftrain(
        {"wait", "exchange", "--for", "succeeded", "--timeout", "4m", "--interval", "1s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);
    auto logs = ns.kftrain({"logs", "exchange"});
    INFO(logs.out << logs.err);
    CHECK(has(logs.out, "rank 0 got 42 from rank 1; config value 21"));
    CHECK(has(logs.out, "rank 1 sent 42"));
    auto maps =
        ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of=exchange", "-o", "json"});
    const json items = json::parse(maps.out)["items"];
    REQUIRE(items.size() == 1);
    CHECK_FALSE(items[0]["data"].contains("debug.log"));  // .kftrainignore
    CHECK(items[0]["data"].contains("lib_2fexchange.py"));
    REQUIRE(ns.kftrain({"delete", "exchange", "--wait"}).code == 0);
    poll_until("the code ConfigMap to go", std::chrono::seconds(60), [&](std::string& last) {
        last = ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of", "-o", "name"}).out;
        return last.empty();
    });
}

TEST_CASE("tune ships the code in one ConfigMap its Experiment owns, tune delete removes both",
          "[e2e]") {
    Namespace ns("codetune");
    const std::string dir = make_project();
    const std::string file = dir + "/tune.yaml";
    kftrain::test::write_file(
        file, "name: tuned\nreplicas: 2\nimage: " + kftrain::e2e::busybox_image() +
                  "\ncommand: [bin/run.sh]\nargs: [--lr, \"${trialParameters.lr}\"]\n"
                  "resources: {cpu: 100m, memory: 64Mi}\ncode:\n  path: proj\n"
                  "tune:\n  params:\n    lr: 0.01:0.1:log\n  objective: accuracy:maximize\n"
                  "  maxTrials: 2\n");
    auto dry = ns.kftrain({"tune", "-f", file, "--dry-run=server"});
    INFO(dry.out << dry.err);
    REQUIRE(dry.code == 0);
    CHECK(ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of", "-o", "name"}).out.empty());

    auto started = ns.kftrain({"tune", "-f", file});
    INFO(started.out << started.err);
    REQUIRE(started.code == 0);
    CHECK(has(started.out, "experiment.kubeflow.org/tuned submitted"));
    auto maps = ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of=tuned", "-o", "json"});
    REQUIRE(maps.code == 0);
    const json items = json::parse(maps.out)["items"];
    REQUIRE(items.size() == 1);
    const std::string name = items[0]["metadata"]["name"];
    CHECK(items[0]["metadata"]["ownerReferences"][0]["kind"] == "Experiment");
    CHECK(items[0]["metadata"]["ownerReferences"][0]["name"] == "tuned");
    // Every trial's job mounts that one ConfigMap: the trial template names it.
    auto experiment = ns.kubectl({"get", "experiments.kubeflow.org", "tuned", "-o", "json"});
    REQUIRE(experiment.code == 0);
    const json volumes =
        json::parse(experiment.out)["spec"]["trialTemplate"]["trialSpec"]["spec"]
                                   ["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["volumes"];
    CHECK(volumes.dump().find("\"name\":\"" + name + "\"") != std::string::npos);

    auto deleted = ns.kftrain({"tune", "delete", "tuned"});
    INFO(deleted.out << deleted.err);
    REQUIRE(deleted.code == 0);
    poll_until(
        "the search's code ConfigMap to go", std::chrono::seconds(60), [&](std::string& last) {
            last = ns.kubectl({"get", "configmaps", "-l", "kftrain.io/code-of", "-o", "name"}).out;
            return last.empty();
        });
}

TEST_CASE("a program that draws a tqdm bar shows its percentage in status on the cluster",
          "[e2e]") {
    Namespace ns("bars");
    const std::string dir = kftrain::test::make_temp_dir();
    fs::create_directories(dir + "/proj");
    // test/data/progress/tqdm_bars.py, a real tqdm bar per epoch; its gate ("/") is open.
    fs::copy_file(std::string(kftrain::test::test_data_dir()) + "/progress/tqdm_bars.py",
                  dir + "/proj/tqdm_bars.py");
    auto run = ns.kftrain({"run", "--replicas", "1", "--name", "bars", "--image",
                           kftrain::e2e::python_image(), "--cpu", "100m", "--memory", "64Mi",
                           "--code", dir + "/proj", "--", "python3", "tqdm_bars.py", "/"});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    auto waited =
        ns.kftrain({"wait", "bars", "--for", "succeeded", "--timeout", "4m", "--interval", "1s"});
    INFO(waited.out << waited.err << kftrain::e2e::pods_of(ns));
    REQUIRE(waited.code == 0);
    auto status = ns.kftrain({"status", "bars"});
    INFO(status.out << status.err);
    CHECK(has(status.out, "Progress:   100% epoch 2/2 step 20/20"));
    CHECK(has(status.out, "(from a tqdm bar)"));
    auto shown = ns.kftrain({"status", "bars", "-o", "json"});
    REQUIRE(shown.code == 0);
    const json progress = json::parse(shown.out)["progress"];
    CHECK(progress["percent"] == 100);
    CHECK(progress["source"] == "a tqdm bar");
    REQUIRE(ns.kftrain({"delete", "bars", "--wait"}).code == 0);
}
