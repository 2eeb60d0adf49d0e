// kftrain diagnose on real failures of real programs, run locally: a Python DDP script whose
// rank 1 raises, a replica killed with SIGKILL, a memory limit hit, workers whose master never
// comes, and a job that stops printing.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "backend/local/local_fixture.h"
#include "backend/local/state/state_dir.h"
#include "support/files.h"
#include "support/paths.h"
#include "support/python_torch.h"

using namespace kftrain::test;
using nlohmann::json;

namespace {

const std::string k_scripts = std::string(kftrain::test::test_data_dir()) + "/diagnose";

// Write a local job running command on every replica, submit it and wait for it to fail.
json diagnose_failed(LocalJobs& jobs, const std::string& name, int replicas,
                     const std::string& command) {
    write_file(jobs.dir() + "/" + name + ".yaml",
               "name: " + name + "\nbackend: local\nreplicas: " + std::to_string(replicas) +
                   "\ncommand: " + command + "\nrunPolicy: {backoffLimit: 0}\n");
    REQUIRE(jobs.kftrain({"submit", "-f", jobs.dir() + "/" + name + ".yaml"}).code == 0);
    jobs.wait_for(
        name, [](const auto& s) { return s.phase == kftrain::job::JobPhase::Failed; },
        std::chrono::seconds(120));
    CliRun run = jobs.kftrain({"diagnose", name, "-o", "json"});
    INFO(run.err);
    REQUIRE(run.code == 0);
    return json::parse(run.out);
}

}  // namespace

TEST_CASE(
    "diagnose names rank 1's exception as the cause and rank 0's lost peer as its "
    "consequence",
    "[diagnose][training][python]") {
    if (!python_torch_ready()) {
        return;
    }
    LocalJobs jobs;
    json d = diagnose_failed(jobs, "diag-raise", 2,
                             "[\"/usr/bin/python3\", \"" + k_scripts + "/rank1_raises.py\"]");
    CHECK(d["verdict"] == "failed");
    CHECK(d["cause"] == "exception");
    CHECK(d["replica"] == "worker-0");  // RANK 1
    CHECK(d["why"].get<std::string>().rfind(
              "worker-0 failed first (exit code 1): an exception in the program: ValueError: "
              "bad batch shape (3, 28) in rank 1",
              0) == 0);
    CHECK(d["evidence"].back()["text"] == "ValueError: bad batch shape (3, 28) in rank 1");
    CHECK_FALSE(d["evidence"].back()["time"].get<std::string>().empty());
    // status and describe say the same in one line.
    CHECK_THAT(jobs.kftrain({"status", "diag-raise"}).out,
               Catch::Contains("Why:        worker-0 failed first (exit code 1): an exception"));
    CHECK_THAT(jobs.kftrain({"describe", "diag-raise"}).out,
               Catch::Contains("Why:             worker-0 failed first"));
}

TEST_CASE("diagnose names workers that never reached their master a rendezvous timeout",
          "[diagnose][training][python]") {
    if (!python_torch_ready()) {
        return;
    }
    LocalJobs jobs;
    json d = diagnose_failed(jobs, "diag-rdzv", 2,
                             "[\"/usr/bin/python3\", \"" + k_scripts + "/master_never_comes.py\"]");
    CHECK(d["cause"] == "rendezvous-timeout");
    CHECK(d["replica"] == "worker-0");
    CHECK_THAT(d["hint"].get<std::string>(), Catch::Contains("MASTER_ADDR"));
    // What the master was doing instead is part of the evidence.
    CHECK(d["evidence"].back()["text"] == "master-0 | master: loading a huge dataset first");
}

TEST_CASE("diagnose names a replica killed by SIGKILL and one out of memory",
          "[diagnose][training]") {
    LocalJobs jobs;
    // $$$$: the kubelet (and kftrain --local) reads $$ in args as an escaped $, so the shell
    // gets $$, its own pid, as it would in the pod.
    json killed = diagnose_failed(
        jobs, "diag-kill", 2,
        "[\"sh\", \"-c\", \"echo rank $RANK up; if [ $RANK = 1 ]; then kill -9 $$$$; fi; "
        "exec sleep 60\"]");
    CHECK(killed["cause"] == "signal");
    CHECK(killed["replica"] == "worker-0");
    CHECK(killed["why"] == "worker-0 failed first (killed by SIGKILL): killed by a signal");
    CHECK(killed["evidence"].back()["text"] == "rank 1 up");

    json oom = diagnose_failed(jobs, "diag-oom", 1,
                               "[\"prlimit\", \"--as=400000000\", \"/usr/bin/python3\", \"-c\", "
                               "\"x = bytearray(2 * 10**9)\"]");
    CHECK(oom["cause"] == "out-of-memory");
    CHECK(oom["why"] == "master-0 failed first (exit code 1): out of memory: MemoryError");
}

TEST_CASE("status and diagnose name a straggler a program reports through its progress lines",
          "[diagnose][training]") {
    LocalJobs jobs;
    // Rank 0 reports each rank's compute seconds per step, as the progress contract allows.
    const std::string line =
        R"({"event":"progress","rank":0,"world_size":3,"time":"2026-01-01T00:00:00.000Z",)"
        R"("epoch":1,"epochs":2,"step":10,"steps_per_epoch":100,"rank_step_s":[0.1,0.35,0.11]})";
    write_file(jobs.dir() + "/slow.yaml",
               "name: diag-slow\nbackend: local\nreplicas: 1\ncommand: [\"sh\", \"-c\", " +
                   nlohmann::json("echo '" + line + "'; exec sleep 300").dump() + "]\n");
    REQUIRE(jobs.kftrain({"submit", "-f", jobs.dir() + "/slow.yaml"}).code == 0);
    jobs.wait_for("diag-slow", [](const auto& s) { return s.progress.has_value(); });
    CHECK_THAT(jobs.kftrain({"status", "diag-slow"}).out,
               Catch::Contains("Straggler:  rank 1 computes a step in 350ms, 3.2x the median "
                               "110ms"));
    json d = json::parse(jobs.kftrain({"diagnose", "diag-slow", "-o", "json"}).out);
    CHECK(d["straggler"]["rank"] == 1);
    CHECK_THAT(d["why"].get<std::string>(), Catch::Contains("a straggler holds"));
}

TEST_CASE("diagnose calls a job that stopped printing stuck, with each replica's last line",
          "[diagnose][training]") {
    LocalJobs jobs;
    write_file(
        jobs.dir() + "/quiet.yaml",
        "name: diag-quiet\nbackend: local\nreplicas: 2\n"
        "command: [\"sh\", \"-c\", \"echo rank $RANK waiting for the data; exec sleep 300\"]\n");
    REQUIRE(jobs.kftrain({"submit", "-f", jobs.dir() + "/quiet.yaml"}).code == 0);
    json d;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    do {  // until both replicas have printed their line and a second has passed
        CliRun run = jobs.kftrain({"diagnose", "diag-quiet", "--stuck-after", "1s", "-o", "json"});
        REQUIRE(run.code == 0);
        d = json::parse(run.out);
        REQUIRE(std::chrono::steady_clock::now() < deadline);
    } while (d["verdict"] != "stuck" || d["evidence"].size() < 2);
    CHECK(d["cause"] == "stuck");
    CHECK(d["evidence"][0]["text"] == "master-0 | rank 0 waiting for the data");
    CHECK(d["evidence"][1]["text"] == "worker-0 | rank 1 waiting for the data");
    CHECK(jobs.kftrain({"diagnose", "diag-quiet"}).out.find("(running)") != std::string::npos);
    CHECK(jobs.kftrain({"diagnose", "nosuch"}).code == 3);
    CHECK(jobs.kftrain({"diagnose", "diag-quiet", "--stuck-after", "soon"}).code == 2);
}

TEST_CASE("diagnose of a program printing secrets, escapes and bytes that are not UTF-8",
          "[diagnose][training]") {
    LocalJobs jobs;
    json d = diagnose_failed(jobs, "diag-hostile", 1,
                             "[python3, \"" + k_scripts + "/hostile_failure.py\"]");
    // Valid JSON (the bytes replaced), the secrets masked.
    const std::string why = d["why"];
    CHECK_THAT(why, Catch::Contains("password=***") && !Catch::Contains("hunter2"));
    CHECK_THAT(d.dump(), !Catch::Contains("hf_abc"));
    CHECK_THAT(why, Catch::Contains("caf\xef\xbf\xbd \xef\xbf\xbd"));
    // The text view shows the escape as text.
    CliRun text = jobs.kftrain({"diagnose", "diag-hostile"});
    CHECK(text.out.find('\x1b') == std::string::npos);
    CHECK_THAT(text.out, Catch::Contains("\\x1b[2J"));
    CHECK_THAT(jobs.kftrain({"status", "diag-hostile"}).out,
               Catch::Contains("Why:") && !Catch::Contains("hunter2"));

    // A log that is no longer the file kftrain wrote (a link to /dev/zero, a FIFO) is not
    // read: diagnose still answers from the job's state.
    const std::string log = kftrain::backend::local::combined_log_path("diag-hostile");
    std::filesystem::remove(log);
    std::filesystem::create_symlink("/dev/zero", log);
    CliRun zero = jobs.kftrain({"diagnose", "diag-hostile", "-o", "json"});
    CHECK(zero.code == 0);
    std::filesystem::remove(log);
    REQUIRE(::mkfifo(log.c_str(), 0600) == 0);
    CliRun fifo = jobs.kftrain({"diagnose", "diag-hostile", "-o", "json"});
    CHECK(fifo.code == 0);
    CHECK(json::parse(fifo.out)["replica"] == "master-0");
}
