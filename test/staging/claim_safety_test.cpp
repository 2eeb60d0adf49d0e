// data get, put and ls against what a claim may hold and how a cluster may fail: a claim whose
// files are hostile (setuid, FIFOs, links, a "." of mode 0777), links inside a claim on this
// machine, links swapped in while a copy runs, files already in OUT_DIR, a kubectl call that
// hangs and a copy that stalls.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "staging/tree_copy.h"
#include "staging/tree_writer.h"
#include "support/data_cluster.h"
#include "support/files.h"
#include "support/paths.h"
#include "util/subprocess.h"

namespace {

namespace fs = std::filesystem;
using kftrain::staging::claim_directory;
using kftrain::staging::TreeWriter;
using kftrain::test::contains;
using kftrain::test::DataCluster;
using kftrain::test::make_temp_dir;
using kftrain::test::mode_of;
using kftrain::test::read_bytes;
using kftrain::test::run_kftrain;
using kftrain::test::write_file;

// Put a symlink to target where the directory path was (moved to path.old), as a job writing in
// the claim could while a copy runs.
void swap_for_symlink(const std::string& path, const std::string& target) {
    fs::rename(path, path + ".old");
    fs::create_symlink(target, path);
}

// A claim as a training job could leave it: a setuid file, a FIFO, a link out, a "." of 0777.
void fill_hostile_claim(const std::string& dir, const std::string& outside) {
    fs::create_directories(dir + "/bin");
    write_file(dir + "/bin/tool", "#!/bin/sh\n");
    REQUIRE(::chmod((dir + "/bin/tool").c_str(), 04755) == 0);
    REQUIRE(::mkfifo((dir + "/pipe").c_str(), 0666) == 0);
    fs::create_symlink(outside, dir + "/escape");
    write_file(dir + "/model.pt", "weights");
    REQUIRE(::chmod(dir.c_str(), 0777) == 0);
}

// Spawn kftrain with args, wait until the fake has seen `calls` kubectl calls, send signal.
kftrain::util::ExitStatus signal_after_calls(const DataCluster& cluster,
                                             std::vector<std::string> args, size_t calls,
                                             int signal) {
    kftrain::util::SpawnOptions spawn;
    spawn.argv = {kftrain::test::kftrain_binary()};
    spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
    spawn.env = cluster.env();
    spawn.stdout_to = kftrain::util::Redirect::null();
    spawn.stderr_to = kftrain::util::Redirect::null();
    auto started = kftrain::util::Process::spawn(spawn);
    REQUIRE(started);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (cluster.cluster.calls().size() < calls && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(cluster.cluster.calls().size() == calls);
    started->signal(signal);
    auto ended = started->wait();
    REQUIRE(ended);
    return *ended;
}

}  // namespace

TEST_CASE("data get from a cluster claim lays down only plain files, and replaces none unasked",
          "[data][cli]") {
    DataCluster cluster("data-claims");
    const std::string outside = make_temp_dir();
    fill_hostile_claim(cluster.volumes + "/mnist-data", outside);
    const std::string out = make_temp_dir() + "/out";
    fs::create_directories(out);
    REQUIRE(::chmod(out.c_str(), 0750) == 0);

    auto get = cluster.run({"data", "get", out, "--claim", "mnist-data", "-n", "ml-training"});
    INFO(get.err);
    REQUIRE(get.code == 0);
    CHECK((mode_of(out + "/bin/tool") & 07000) == 0);
    CHECK(read_bytes(out + "/bin/tool") == "#!/bin/sh\n");
    CHECK((mode_of(out) & 07777) == 0750);  // the claim's "." is not applied
    CHECK_FALSE(fs::exists(fs::symlink_status(out + "/pipe")));
    CHECK_FALSE(fs::exists(fs::symlink_status(out + "/escape")));
    CHECK(contains(get.err, "skipped ./pipe: a FIFO"));
    CHECK(contains(get.err, "skipped ./escape: a symlink (to " + outside + ")"));
    CHECK(contains(get.err, "get: 2 files, 17 B from claim mnist-data:/ to " + out +
                                " (2 entries left out: see the warnings above)"));

    write_file(out + "/model.pt", "my own weights");
    DataCluster again("data-claims");
    fill_hostile_claim(again.volumes + "/mnist-data", outside);
    auto refused = again.run({"data", "get", out, "--claim", "mnist-data", "-n", "ml-training"});
    CHECK(refused.code == 2);
    CHECK(contains(refused.err, "OUT_DIR: 2 paths would replace what is already in " + out +
                                    " (bin/tool, model.pt): give --force"));
    CHECK(read_bytes(out + "/model.pt") == "my own weights");
    kftrain::test::check_pod_deleted(again.cluster);

    DataCluster forced("data-claims");
    fill_hostile_claim(forced.volumes + "/mnist-data", outside);
    auto replaced =
        forced.run({"data", "get", out, "--claim", "mnist-data", "-n", "ml-training", "--force"});
    INFO(replaced.err);
    CHECK(replaced.code == 0);
    CHECK(read_bytes(out + "/model.pt") == "weights");
}

TEST_CASE("data on this machine never follows a link inside a claim", "[data]") {
    const std::string root = make_temp_dir() + "/claim";
    const std::string outside = make_temp_dir();
    fs::create_directories(root + "/runs");
    fs::create_symlink(outside, root + "/link");
    fs::create_symlink(outside, root + "/runs/latest");
    write_file(outside + "/secret", "not the claim's");
    const std::string data = make_temp_dir();
    fs::create_directories(data + "/latest");
    write_file(data + "/latest/model.pt", "weights");

    auto via_path = run_kftrain(
        {"data", "put", data, "--claim", "c", "--path", "/link/deeper", "--local-path", root});
    CHECK(via_path.code == 2);
    CHECK(contains(via_path.err,
                   "--path: /link in claim c is a symlink or a file, not a "
                   "directory: kftrain never follows a link inside a claim"));
    auto via_tree =
        run_kftrain({"data", "put", data, "--claim", "c", "--path", "/runs", "--local-path", root});
    CHECK(via_tree.code == 2);
    CHECK(contains(via_tree.err, root + "/runs/latest is a symlink"));
    CHECK(fs::directory_iterator(outside)->path().filename() == "secret");
    CHECK(std::distance(fs::directory_iterator(outside), fs::directory_iterator()) == 1);

    auto ls = run_kftrain({"data", "ls", "--claim", "c", "--path", "/link", "--local-path", root});
    CHECK(ls.code == 2);
    CHECK_FALSE(contains(ls.out, "secret"));
    auto listed = run_kftrain({"data", "ls", "--claim", "c", "--local-path", root});
    INFO(listed.err);
    CHECK(listed.code == 0);
    CHECK(contains(listed.out, "link "));
    CHECK(contains(listed.out, "symlink"));
    CHECK_FALSE(contains(listed.out, "secret"));
    const std::string out = make_temp_dir() + "/out";
    auto get = run_kftrain({"data", "get", out, "--claim", "c", "--local-path", root});
    INFO(get.err);
    CHECK(get.code == 0);
    CHECK_FALSE(fs::exists(out + "/link/secret"));
    CHECK(contains(get.err, "skipped link: a symlink"));
}

TEST_CASE("data get shows a skipped link's target with its control characters escaped", "[data]") {
    const std::string root = make_temp_dir() + "/claim";
    fs::create_directories(root);
    fs::create_symlink("\x1b]0;owned\x07\x1b[31mred", root + "/link");
    const std::string out = make_temp_dir() + "/out";
    auto get = run_kftrain({"data", "get", out, "--claim", "c", "--local-path", root});
    CHECK(get.code == 0);
    CHECK(contains(get.err, "skipped link: a symlink (to \\x1b]0;owned\\x07\\x1b[31mred)"));
    CHECK_FALSE(contains(get.err, "\x1b"));
}

TEST_CASE("data ls on this machine shows a link as itself and says what is too long to list",
          "[data]") {
    const std::string root = make_temp_dir() + "/claim";
    const std::string outside = make_temp_dir();
    fs::create_directories(root + "/runs");
    write_file(outside + "/secret", "not the claim's");
    fs::create_symlink(outside, root + "/runs/latest");
    fs::create_symlink("\x1b[31mred", root + "/odd");
    // A tree deeper than PATH_MAX, made a directory at a time from the one above.
    int fd = ::open(root.c_str(), O_DIRECTORY | O_RDONLY);
    REQUIRE(fd >= 0);
    const std::string part(250, 'd');
    for (int level = 0; level < 18; ++level) {
        REQUIRE(::mkdirat(fd, part.c_str(), 0700) == 0);
        const int below = ::openat(fd, part.c_str(), O_DIRECTORY | O_RDONLY);
        ::close(fd);
        REQUIRE(below >= 0);
        fd = below;
    }
    ::close(::openat(fd, "deep.bin", O_CREAT | O_WRONLY, 0600));
    ::close(fd);

    auto listed = run_kftrain({"data", "ls", "--claim", "c", "--local-path", root});
    CHECK(listed.code == 0);
    CHECK(contains(listed.out, "runs/latest -> " + outside + " "));
    CHECK(contains(listed.out, "odd -> \\x1b[31mred "));
    CHECK_FALSE(contains(listed.out, "\x1b"));
    CHECK_FALSE(contains(listed.out, "secret"));
    CHECK(contains(listed.err, "kftrain: warning: not listed: " + part));
    CHECK(contains(listed.err, "File name too long"));
}

TEST_CASE("data put on this machine writes where it checked, not through a link swapped in after",
          "[data]") {
    const std::string root = make_temp_dir() + "/claim";
    const std::string outside = make_temp_dir();
    fs::create_directories(outside + "/latest");
    auto dir = claim_directory(root, "/runs/latest", "c", true);
    REQUIRE(dir);
    swap_for_symlink(root + "/runs", outside);

    auto writer = TreeWriter::beneath(std::move(dir->fd), dir->path, true);
    REQUIRE(writer.begin_file("model.pt", 0644));
    REQUIRE(writer.write("weights", 7));
    REQUIRE(writer.end_file(0));
    CHECK(fs::is_empty(outside + "/latest"));
    CHECK(read_bytes(root + "/runs.old/latest/model.pt") == "weights");
}

TEST_CASE("data get on this machine reads what it checked, not through a link swapped in after",
          "[data]") {
    const std::string root = make_temp_dir() + "/claim";
    const std::string outside = make_temp_dir();
    fs::create_directories(root + "/runs/latest");
    write_file(root + "/runs/latest/model.pt", "weights");
    fs::create_directories(outside + "/latest");
    write_file(outside + "/latest/secret", "not the claim's");
    auto dir = claim_directory(root, "/runs/latest", "c", false);
    REQUIRE(dir);
    swap_for_symlink(root + "/runs", outside);

    const std::string out = make_temp_dir();
    auto writer = TreeWriter::open(out, false);
    REQUIRE(writer);
    std::ostringstream warn;
    kftrain::staging::TreeSink sink(*writer, false, warn);
    REQUIRE(kftrain::staging::read_tree(std::move(dir->fd), dir->path, sink));
    CHECK(read_bytes(out + "/model.pt") == "weights");
    CHECK_FALSE(fs::exists(out + "/secret"));
}

TEST_CASE("A directory swapped for a link between two writes of a copy is not written through",
          "[data]") {
    const std::string out = make_temp_dir() + "/out";
    const std::string outside = make_temp_dir();
    fs::create_directories(out);
    auto writer = TreeWriter::open(out, true);
    REQUIRE(writer);
    REQUIRE(writer->make_directory("runs", 0755));
    swap_for_symlink(out + "/runs", outside);

    auto begun = writer->begin_file("runs/model.pt", 0644);
    REQUIRE_FALSE(begun);
    CHECK(begun.error() == out +
                               "/runs is a symlink or a file where a directory goes: kftrain never "
                               "writes through one (remove it, or copy elsewhere)");
    CHECK(begun.error_code(0) == 2);
    CHECK(fs::is_empty(outside));
}

TEST_CASE("data stops at SIGTERM while a kubectl call hangs, and starts nothing after it",
          "[data][cli]") {
    DataCluster cluster("data-claim-hangs");
    auto ended = signal_after_calls(
        cluster, {"data", "ls", "--claim", "mnist-data", "-n", "ml-training"}, 1, SIGTERM);
    CHECK(ended.code == 130);
    CHECK(cluster.cluster.applied().empty());
    CHECK(cluster.cluster.calls().size() == 1);
}

TEST_CASE("A copy that moves no data within --request-timeout fails and deletes its pod",
          "[data][cli]") {
    DataCluster cluster("data-copy-stalls");
    fs::create_directories(cluster.volumes + "/mnist-data");
    write_file(cluster.volumes + "/mnist-data/a", "a");
    const std::string out = make_temp_dir() + "/out";
    auto get = cluster.run({"data", "get", out, "--claim", "mnist-data", "-n", "ml-training",
                            "--request-timeout", "1s"});
    CHECK(get.code == 5);
    CHECK(contains(get.err,
                   "get stalled: no data moved for 6 s (--request-timeout); deleting "
                   "helper pod kftrain-data-mnist-data-"));
    // kubectl's calls carry the global flag first: the last one deletes the pod.
    auto calls = cluster.cluster.calls();
    REQUIRE(calls.size() >= 2);
    CHECK(calls.back()[1] == "delete");
    CHECK(calls.back()[2] == "pod");
    CHECK(calls[calls.size() - 2][1] == "exec");
}
