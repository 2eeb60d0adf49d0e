// kftrain data put|get|ls: a claim's files copied in and out through a helper pod on the
// cluster (the fake kubectl runs the pod's tar, find and stat here, on a directory per claim),
// or the directory a claim maps to on this machine.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "backend/kube/data/helper_pod.h"
#include "backend/kube/data/pod_start.h"
#include "staging/claim_path.h"
#include "support/data_cluster.h"
#include "support/fake_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/subprocess.h"

namespace {

namespace fs = std::filesystem;
using kftrain::test::applied_pod_name;
using kftrain::test::check_pod_deleted;
using kftrain::test::CliRun;
using kftrain::test::contains;
using kftrain::test::DataCluster;
using kftrain::test::FakeCluster;
using kftrain::test::make_temp_dir;
using kftrain::test::read_bytes;
using kftrain::test::write_file;
using Files = std::map<std::string, std::string>;

// Read every regular file under dir: relative path -> bytes.
Files read_tree(const std::string& dir) {
    Files files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (entry.is_regular_file()) {
            std::ifstream in(entry.path(), std::ios::binary);
            files[fs::relative(entry.path(), dir).string()] =
                std::string(std::istreambuf_iterator<char>(in), {});
        }
    }
    return files;
}

// A small data set: text, binary with NULs and high bytes, a nested file, an empty file.
std::string make_data_set() {
    std::string dir = make_temp_dir() + "/mnist";
    fs::create_directories(dir + "/raw");
    write_file(dir + "/README", "MNIST, a few bytes of it\n");
    std::string binary;
    for (int i = 0; i < 200000; ++i) {
        binary += static_cast<char>((i * 7) & 0xff);
    }
    write_file(dir + "/raw/train-images.bin", binary);
    write_file(dir + "/raw/empty", "");
    return dir;
}

std::vector<std::string> verbs(const FakeCluster& cluster) {
    std::vector<std::string> out;
    for (const auto& call : cluster.calls()) {
        out.push_back(call[0] == "exec" ? "exec " + call.back() : call[0]);
    }
    return out;
}

}  // namespace

TEST_CASE("A --path is normalized inside the claim, never outside it", "[data]") {
    using kftrain::staging::normalize_claim_path;
    const std::vector<std::pair<std::string, std::string>> good = {{"/", "/"},
                                                                   {"/mnist", "/mnist"},
                                                                   {"/mnist/", "/mnist"},
                                                                   {"//a/./b//", "/a/b"},
                                                                   {"/a/..b", "/a/..b"}};
    for (const auto& [given, normalized] : good) {
        INFO(given);
        auto path = normalize_claim_path(given);
        REQUIRE(path);
        CHECK(*path == normalized);
        CHECK(kftrain::staging::pod_path(*path) ==
              (normalized == "/" ? "/kftrain/claim" : "/kftrain/claim" + normalized));
    }
    for (const std::string bad : {"", "mnist", "./mnist", "/..", "/a/../../b", "/a/\n/b"}) {
        INFO(bad);
        CHECK_FALSE(normalize_claim_path(bad));
    }
}

TEST_CASE("A Multi-Attach event names the pods that hold the claim", "[data]") {
    using kftrain::backend::kube::pods_named_in;
    CHECK(pods_named_in("Multi-Attach error for volume \"pvc-1\" Volume is already used by "
                        "pod(s) train-master-0, train-worker-0") ==
          std::vector<std::string>{"train-master-0", "train-worker-0"});
    CHECK(pods_named_in("Multi-Attach error for volume \"pvc-1\" Volume is already used by "
                        "pod(s) a-0 and 1 pod(s) in different namespaces") ==
          std::vector<std::string>{"a-0"});
    CHECK(pods_named_in("Multi-Attach error for volume \"pvc-1\" Volume is already "
                        "exclusively attached to one node and can't be attached to another")
              .empty());
}

TEST_CASE("The helper pod's name fits a hostname whatever the claim", "[data]") {
    using kftrain::backend::kube::helper_pod_name;
    CHECK(helper_pod_name("mnist-data", "x7k2p") == "kftrain-data-mnist-data-x7k2p");
    CHECK(helper_pod_name("data.v2", "x7k2p") == "kftrain-data-data-v2-x7k2p");
    CHECK(helper_pod_name(std::string(253, 'a'), "x7k2p").size() == 13 + 40 + 6);
}

TEST_CASE("data put, ls and get round-trip a directory on this machine", "[data]") {
    const std::string data = make_data_set();
    const std::string root = make_temp_dir() + "/claim";
    const std::string out = make_temp_dir() + "/out";
    auto put = kftrain::test::run_kftrain(
        {"data", "put", data, "--claim", "mnist-data", "--path", "/mnist", "--local-path", root});
    INFO(put.err);
    REQUIRE(put.code == 0);
    CHECK(
        contains(put.err, "put: 3 files, 195.3 KiB from " + data + " to claim mnist-data:/mnist"));
    CHECK(read_tree(root + "/mnist") == read_tree(data));

    auto ls = kftrain::test::run_kftrain({"data", "ls", "--claim", "mnist-data", "--path", "/mnist",
                                          "--local-path", root, "-o", "json"});
    INFO(ls.err);
    REQUIRE(ls.code == 0);
    auto listing = nlohmann::json::parse(ls.out);
    CHECK(listing["files"] == 3);
    CHECK(listing["bytes"] == 200000 + 25);
    CHECK(listing["entries"][1]["path"] == "raw");
    CHECK(listing["entries"][1]["type"] == "directory");
    CHECK(listing["entries"][3]["path"] == "raw/train-images.bin");
    CHECK(listing["entries"][3]["size"] == 200000);

    auto get = kftrain::test::run_kftrain(
        {"data", "get", out, "--claim", "mnist-data", "--path", "/mnist", "--local-path", root});
    INFO(get.err);
    REQUIRE(get.code == 0);
    CHECK(read_tree(out) == read_tree(data));
}

TEST_CASE("data put on this machine keeps a sparse file sparse", "[data]") {
    const std::string data = make_temp_dir() + "/data";
    fs::create_directories(data);
    {
        std::ofstream sparse(data + "/sparse.bin");
        sparse.seekp((64 << 20) - 1);
        sparse << 'x';
    }
    const std::string root = make_temp_dir() + "/claim";
    auto put = kftrain::test::run_kftrain(
        {"data", "put", data, "--claim", "ckpt", "--path", "/in", "--local-path", root});
    INFO(put.err);
    REQUIRE(put.code == 0);
    struct stat st {};
    REQUIRE(::stat((root + "/in/sparse.bin").c_str(), &st) == 0);
    CHECK(st.st_size == 64 << 20);
    CHECK(st.st_blocks * 512 < (1 << 20));  // not 64 MiB of written zeros
    CHECK(read_bytes(root + "/in/sparse.bin").back() == 'x');
}

TEST_CASE("data put on this machine stops mid-file at Ctrl-C and leaves no partial file",
          "[data]") {
    const std::string data = make_temp_dir() + "/data";
    fs::create_directories(data);
    {
        std::ofstream huge(data + "/huge.bin");  // 1 TiB of holes: minutes to read through
        huge.seekp((1LL << 40) - 1);
        huge << 'x';
    }
    const std::string root = make_temp_dir() + "/claim";
    kftrain::util::SpawnOptions spawn;
    spawn.argv = {kftrain::test::kftrain_binary(),
                  "data",
                  "put",
                  data,
                  "--claim",
                  "ckpt",
                  "--path",
                  "/in",
                  "--local-path",
                  root};
    spawn.stdout_to = kftrain::util::Redirect::null();
    spawn.stderr_to = kftrain::util::Redirect::null();
    auto started = kftrain::util::Process::spawn(spawn);
    REQUIRE(started);
    kftrain::test::Reaped put{std::move(*started)};
    const std::string partial = root + "/in/.huge.bin.kftrain-partial";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(partial) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE(fs::exists(partial));
    put.process.signal(SIGINT);
    const auto ended = kftrain::test::wait_exit(put.process, std::chrono::seconds(60),
                                                [] { return std::string(); });
    CHECK(ended.code == 130);
    CHECK_FALSE(fs::exists(root + "/in/huge.bin"));
    CHECK_FALSE(fs::exists(partial));
}

TEST_CASE("data takes a claim's directory from the job file's volume localPath", "[data]") {
    const std::string data = make_data_set();
    const std::string dir = make_temp_dir();
    write_file(dir + "/job.yaml",
               "name: mnist-local\nbackend: local\nvolumes:\n  - name: data\n    claim: "
               "mnist-data\n    mountPath: /data\n    localPath: " +
                   dir + "/data\n");
    auto put = kftrain::test::run_kftrain(
        {"data", "put", data, "--claim", "mnist-data", "-f", dir + "/job.yaml"});
    INFO(put.err);
    REQUIRE(put.code == 0);
    CHECK(read_tree(dir + "/data") == read_tree(data));

    auto other = kftrain::test::run_kftrain(
        {"data", "ls", "--claim", "training-checkpoints", "-f", dir + "/job.yaml"});
    CHECK(other.code == 2);
    CHECK(other.err == "kftrain: error: --claim training-checkpoints: " + dir +
                           "/job.yaml mounts no volume with this claim (its claims: "
                           "mnist-data)\n");

    auto none = kftrain::test::run_kftrain({"data", "ls", "--claim", "mnist-data", "--local"});
    CHECK(none.code == 2);
    CHECK(none.err ==
          "kftrain: error: --claim mnist-data: on this machine a claim is a directory: give "
          "--local-path DIR, or -f JOB_FILE whose volume for this claim has a localPath\n");
}

TEST_CASE("data put and get on a cluster copy through a helper pod that is then deleted",
          "[data][cli]") {
    const std::string data = make_data_set();
    DataCluster put_cluster("data-claims");
    auto put = put_cluster.run(
        {"data", "put", data, "--claim", "mnist-data", "--path", "/mnist", "-n", "ml-training"});
    INFO(put.err);
    REQUIRE(put.code == 0);
    CHECK(
        contains(put.err, "put: 3 files, 195.3 KiB from " + data + " to claim mnist-data:/mnist"));
    CHECK(read_tree(put_cluster.volumes + "/mnist-data/mnist") == read_tree(data));
    CHECK(verbs(put_cluster.cluster) ==
          std::vector<std::string>{"get", "apply", "wait", "exec /kftrain/claim/mnist",
                                   "exec /kftrain/claim/mnist", "delete"});
    auto calls = put_cluster.cluster.calls();
    CHECK(calls[0] == std::vector<std::string>{"get", "persistentvolumeclaim", "-o", "json", "-n",
                                               "ml-training", "--", "mnist-data"});
    const std::string pod = applied_pod_name(put_cluster.cluster);
    CHECK(calls[2] == std::vector<std::string>{"wait", "--for=condition=Ready", "--timeout=2s",
                                               "-n", "ml-training", "pod/" + pod});
    CHECK(calls[4] == std::vector<std::string>{"exec", "-i", "-n", "ml-training", pod, "-c", "copy",
                                               "--", "tar", "-x", "-f", "-", "-C",
                                               "/kftrain/claim/mnist"});
    const std::string manifest = put_cluster.cluster.applied()[0];
    CHECK(contains(manifest, "kind: Pod\n"));
    CHECK(contains(manifest, "restartPolicy: Never\n"));
    CHECK(contains(manifest, "activeDeadlineSeconds: 21600\n"));
    // The API server takes a container's command as strings only: no plain 21600 in it.
    CHECK(contains(manifest, "command:\n        - sleep\n        - \"21600\"\n"));
    CHECK(contains(manifest, "app.kubernetes.io/managed-by: kftrain\n"));
    CHECK(contains(manifest,
                   "      volumeMounts:\n        - name: claim\n          mountPath: "
                   "/kftrain/claim\n          readOnly: false\n"));
    CHECK(contains(manifest, "claimName: mnist-data\n"));
    CHECK(contains(manifest, "runAsNonRoot: true\n"));
    check_pod_deleted(put_cluster.cluster);

    DataCluster get_cluster("data-claims");
    fs::create_directories(get_cluster.volumes + "/mnist-data");
    fs::copy(data, get_cluster.volumes + "/mnist-data/mnist", fs::copy_options::recursive);
    const std::string out = make_temp_dir() + "/out";
    auto get = get_cluster.run(
        {"data", "get", out, "--claim", "mnist-data", "--path", "/mnist/", "-n", "ml-training"});
    INFO(get.err);
    REQUIRE(get.code == 0);
    CHECK(read_tree(out) == read_tree(data));
    CHECK(contains(get.err, "get: 3 files, 195.3 KiB from claim mnist-data:/mnist to " + out));
    const std::string get_manifest = get_cluster.cluster.applied()[0];
    CHECK(contains(get_manifest, "mountPath: /kftrain/claim\n          readOnly: true\n"));
    CHECK(contains(get_manifest, "claimName: mnist-data\n        readOnly: true\n"));
    CHECK_FALSE(contains(get_manifest, "fsGroup"));
    check_pod_deleted(get_cluster.cluster);
}

TEST_CASE("data ls lists a claim's files through a read-only helper pod", "[data][cli]") {
    DataCluster cluster("data-claims");
    fs::copy(make_data_set(), cluster.volumes + "/mnist-data", fs::copy_options::recursive);
    auto ls = cluster.run({"data", "ls", "--claim", "mnist-data", "-n", "ml-training"});
    INFO(ls.err);
    REQUIRE(ls.code == 0);
    CHECK(contains(ls.out, "PATH                  TYPE       SIZE       MODIFIED\n"));
    CHECK(contains(ls.out, "raw/train-images.bin  file       195.3 KiB  "));
    CHECK(contains(ls.out, "\n3 files, 195.3 KiB in mnist-data:/\n"));
    CHECK(contains(cluster.cluster.applied()[0], "readOnly: true"));
    check_pod_deleted(cluster.cluster);

    DataCluster missing("data-claims");
    auto absent = missing.run(
        {"data", "ls", "--claim", "mnist-data", "--path", "/nope", "-n", "ml-training"});
    CHECK(absent.code == 3);
    CHECK(absent.err ==
          "kftrain: error: --path: /nope not found in persistentvolumeclaim mnist-data\n");
    check_pod_deleted(missing.cluster);
}

TEST_CASE("data ls: a newline in a file name forges no entry and reaches no terminal raw",
          "[data][cli]") {
    DataCluster cluster("data-claims");
    const std::string claim = cluster.volumes + "/mnist-data";
    // A directory whose name, cut at its newline, makes the path of a file below it read as
    // stat's line for a 9 GB file at the claim's root.
    const std::string forger = "a\nregular file\t9999999999\t0\t";
    fs::create_directories(claim + "/" + forger + "/kftrain/claim");
    write_file(claim + "/" + forger + "/kftrain/claim/forged", "x");
    auto ls =
        cluster.run({"data", "ls", "--claim", "mnist-data", "-n", "ml-training", "-o", "json"});
    INFO(ls.err);
    REQUIRE(ls.code == 0);
    const auto listing = nlohmann::json::parse(ls.out);
    CHECK(listing["files"] == 1);
    CHECK(listing["bytes"] == 1);
    for (const auto& entry : listing["entries"]) {
        CHECK(entry["path"] != "forged");
    }
    CHECK(listing["entries"].back()["path"] == forger + "/kftrain/claim/forged");
    auto table = cluster.run({"data", "ls", "--claim", "mnist-data", "-n", "ml-training"});
    CHECK(contains(table.out, "a\\x0aregular file\\t9999999999\\t0\\t/kftrain/claim/forged"));
    CHECK(contains(table.out, "\n1 file, 1 B in mnist-data:/\n"));
}

TEST_CASE("data put deletes the helper pod when the copy fails", "[data][cli]") {
    DataCluster cluster("data-copy-fails");
    auto put = cluster.run({"data", "put", make_data_set(), "--claim", "mnist-data", "--path",
                            "/mnist", "-n", "ml-training"});
    INFO(put.err);
    CHECK(put.code == 4);
    CHECK(contains(put.err,
                   "kftrain: error: put failed (exit code 1): tar: write error: No "
                   "space left on device\n"));
    check_pod_deleted(cluster.cluster);
}

TEST_CASE("data put into a claim only root may write says how to get in", "[data][cli]") {
    DataCluster cluster("data-claim-root-only");
    auto put = cluster.run({"data", "put", make_data_set(), "--claim", "mnist-data", "--path",
                            "/mnist", "-n", "ml-training"});
    INFO(put.err);
    CHECK(put.code == 4);
    CHECK(contains(put.err,
                   "kftrain: error: cannot create /mnist in claim mnist-data: mkdir: "
                   "can't create directory '/kftrain/claim/mnist': Permission denied "
                   "(hint: the helper pod runs as user 65534"));
    CHECK(contains(put.err, "give --as-root, or use storage that applies fsGroup)"));
    check_pod_deleted(cluster.cluster);
}

TEST_CASE("data on a ReadWriteOnce claim in use on another node names the pod and exits 4",
          "[data][cli]") {
    DataCluster cluster("data-multiattach");
    auto get = cluster.run(
        {"data", "get", make_temp_dir(), "--claim", "training-checkpoints", "-n", "ml-training"});
    INFO(get.err);
    CHECK(get.code == 4);
    CHECK(contains(get.err,
                   "kftrain: error: --claim: persistentvolumeclaim training-checkpoints is in use "
                   "by pod mnist-ddp-master-0 on node ip-10-0-1-23.ec2.internal and cannot be "
                   "mounted by another pod on another node (Multi-Attach error for volume "
                   "\"pvc-8a2b4c6d-1e3f-4a5b-8c7d-9e0f1a2b3c4d\" Volume is already used by "
                   "pod(s) mnist-ddp-master-0); wait for that pod to finish or delete it, then "
                   "try again\n"));
    check_pod_deleted(cluster.cluster);
}

TEST_CASE("data gives up on a helper pod that is not Ready in time and deletes it", "[data][cli]") {
    DataCluster cluster("data-pending");
    auto ls = cluster.run(
        {"data", "ls", "--claim", "mnist-data", "-n", "ml-training", "--timeout", "1s"});
    INFO(ls.err);
    CHECK(ls.code == 5);
    CHECK(contains(ls.err,
                   " was not Ready within 1s (--timeout); last warning: "
                   "FailedScheduling: 0/3 nodes are available"));
    check_pod_deleted(cluster.cluster);
}

TEST_CASE("data deletes the helper pod on Ctrl-C, SIGTERM and SIGHUP", "[data][cli]") {
    auto signal = GENERATE(SIGINT, SIGTERM, SIGHUP);
    INFO("signal " << signal);
    DataCluster cluster("data-pending");
    kftrain::util::SpawnOptions spawn;
    spawn.argv = {kftrain::test::kftrain_binary(),
                  "data",
                  "ls",
                  "--claim",
                  "mnist-data",
                  "-n",
                  "ml-training",
                  "--timeout",
                  "60s"};
    spawn.env = cluster.env();
    spawn.stdout_to = kftrain::util::Redirect::null();
    spawn.stderr_to = kftrain::util::Redirect::null();
    auto started = kftrain::util::Process::spawn(spawn);
    REQUIRE(started);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (cluster.cluster.applied().empty() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(cluster.cluster.applied().size() == 1);
    started->signal(signal);
    auto ended = started->wait();
    REQUIRE(ended);
    CHECK(ended->code == 130);
    check_pod_deleted(cluster.cluster);
}

TEST_CASE("data refuses bad input before it creates anything", "[data][cli]") {
    const std::string data = make_data_set();
    const std::string file = make_temp_dir() + "/file";
    write_file(file, "x");
    struct Case {
        std::vector<std::string> args;
        int code;
        std::string err;
    };
    const std::vector<Case> cases = {
        {{"put", "/no/such/dir", "--claim", "mnist-data"},
         2,
         "kftrain: error: LOCAL_DIR: no such directory (got '/no/such/dir')\n"},
        {{"put", file, "--claim", "mnist-data"},
         2,
         "kftrain: error: LOCAL_DIR: not a directory (got '" + file + "')\n"},
        {{"put", data, "--claim", "mnist-data", "--path", "mnist"},
         2,
         "kftrain: error: --path: must be an absolute path inside the claim, such as /mnist "
         "(got 'mnist')\n"},
        {{"get", make_temp_dir(), "--claim", "mnist-data", "--path", "/mnist/../../etc"},
         2,
         "kftrain: error: --path: must stay inside the claim: '..' is not allowed (got "
         "'/mnist/../../etc')\n"},
        {{"ls", "--claim", "Mnist_Data"},
         2,
         "kftrain: error: --claim: must be a Kubernetes object name: lower-case letters, digits, "
         "'-' and '.', starting and ending with a letter or digit, at most 253 characters (got "
         "'Mnist_Data')\n"},
        {{"ls", "--claim", "mnist-data", "-o", "wide"},
         2,
         "kftrain: error: -o/--output: must be table, json or yaml (got wide)\n"},
        {{"put", data, "--claim", "no-such-claim"},
         3,
         "kftrain: error: --claim: persistentvolumeclaim no-such-claim not found in namespace "
         "ml-training (kubectl get persistentvolumeclaims lists those there)\n"},
    };
    for (const auto& c : cases) {
        DataCluster cluster("data-claims");
        std::vector<std::string> args = {"data"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        auto run = cluster.run(args);
        INFO(kftrain::util::format_argv(args));
        CHECK(run.code == c.code);
        CHECK(run.err == c.err);
        CHECK(cluster.cluster.applied().empty());
    }
}
