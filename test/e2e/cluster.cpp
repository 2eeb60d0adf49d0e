#include "e2e/cluster.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <thread>

#include "support/files.h"

namespace kftrain::e2e {

namespace {

std::string required_env(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
        FAIL(fmt::format("{} is not set: the cluster suite runs under test/e2e/run.sh (make e2e)",
                         name));
    }
    return value;
}

std::string random_suffix() {
    static std::mt19937 generator{std::random_device{}()};
    const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string suffix;
    for (int i = 0; i < 5; ++i) {
        suffix += alphabet[std::uniform_int_distribution<int>(0, 35)(generator)];
    }
    return suffix;
}

}  // namespace

std::string trainer_image() {
    return required_env("KFTRAIN_E2E_TRAINER_IMAGE");
}
std::string busybox_image() {
    return required_env("KFTRAIN_E2E_BUSYBOX_IMAGE");
}

std::string python_image() {
    return required_env("KFTRAIN_E2E_PYTHON_IMAGE");
}

CliRun kubectl(const std::vector<std::string>& args, const std::string& input) {
    required_env("KUBECONFIG");
    std::vector<std::string> argv{"kubectl"};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_program(argv, input);
}

CliRun kftrain(const std::string& namespace_, std::vector<std::string> args) {
    required_env("KUBECONFIG");
    // Before the verb: after a `--` (kftrain run -- COMMAND) it would be the command's.
    args.insert(args.begin(), {"-n", namespace_});
    return test::run_kftrain(args);
}

Namespace::Namespace(const std::string& prefix) : m_name("e2e-" + prefix + "-" + random_suffix()) {
    auto created = e2e::kubectl({"create", "namespace", m_name});
    REQUIRE(created.code == 0);
    // Pods cannot be created before the namespace's default service account exists.
    poll_until("the default service account of " + m_name, std::chrono::seconds(60),
               [&](std::string& last) {
                   auto got = kubectl({"get", "serviceaccount", "default"});
                   last = got.err;
                   return got.code == 0;
               });
}

Namespace::~Namespace() {
    e2e::kubectl({"delete", "namespace", m_name, "--wait=false", "--ignore-not-found"});
}

CliRun Namespace::kftrain(const std::vector<std::string>& args) const {
    return e2e::kftrain(m_name, args);
}

CliRun Namespace::kubectl(std::vector<std::string> args, const std::string& input) const {
    args.insert(args.end(), {"-n", m_name});
    return e2e::kubectl(args, input);
}

void Namespace::submit(const std::string& job_file_text,
                       const std::vector<std::string>& flags) const {
    std::vector<std::string> args{"submit", "-f", write_temp("job.yaml", job_file_text)};
    args.insert(args.end(), flags.begin(), flags.end());
    auto submitted = kftrain(args);
    INFO(submitted.out << submitted.err);
    REQUIRE(submitted.code == 0);
}

void Namespace::apply(const std::string& manifest) const {
    auto applied = kubectl({"apply", "-f", "-"}, manifest);
    INFO(applied.err);
    REQUIRE(applied.code == 0);
}

void poll_until(const std::string& what, std::chrono::seconds deadline,
                const std::function<bool(std::string& last)>& check) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    std::string last;
    while (!check(last)) {
        if (std::chrono::steady_clock::now() > until) {
            FAIL(fmt::format("waited {} s for {}; last seen:\n{}", deadline.count(), what, last));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

std::string trainer_job(const std::string& name, const std::string& kind, int replicas,
                        const std::string& extra) {
    return fmt::format(R"(name: {}
kind: {}
image: {}
replicas: {}
resources:
  cpu: 300m
  memory: 256Mi
trainer:
  dataset: synthetic
  model: mlp
  samples: 512
  batchSize: 32
  epochs: 1
  threads: 1
  logEvery: 4
  timeout: 120
{})",
                       name, kind, trainer_image(), replicas, extra);
}

std::string write_temp(const std::string& file_name, const std::string& text) {
    std::string path = test::make_temp_dir() + "/" + file_name;
    test::write_file(path, text);
    return path;
}

std::string make_host_claim(const Namespace& ns, const std::string& claim) {
    std::string dir = test::make_temp_dir();
    // The trainer and the data helper run as users of their own: hostPath keeps this mode.
    REQUIRE(::chmod(dir.c_str(), 0777) == 0);
    const std::string volume = ns.name() + "-" + claim;
    auto pv = e2e::kubectl({"apply", "-f", "-"}, fmt::format(R"(apiVersion: v1
kind: PersistentVolume
metadata:
  name: {0}
  labels: {{kftrain-e2e: "true"}}
spec:
  capacity: {{storage: 1Gi}}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  hostPath: {{path: "{1}", type: Directory}}
  claimRef: {{namespace: {2}, name: {3}}}
)",
                                                             volume, dir, ns.name(), claim));
    INFO(pv.err);
    REQUIRE(pv.code == 0);
    ns.apply(fmt::format(R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: {}
  resources: {{requests: {{storage: 1Gi}}}}
)",
                         claim, volume));
    poll_until("claim " + claim + " bound", std::chrono::seconds(60), [&](std::string& last) {
        last = ns.kubectl({"get", "pvc", claim, "-o", "jsonpath={.status.phase}"}).out;
        return last == "Bound";
    });
    return dir;
}

std::string pods_of(const Namespace& ns) {
    return ns
        .kubectl({"get", "pods", "-o",
                  "jsonpath={range .items[*]}{.metadata.name} {.status.phase}{\"\\n\"}{end}"})
        .out;
}

}  // namespace kftrain::e2e
