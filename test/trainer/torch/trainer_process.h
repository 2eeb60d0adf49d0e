#pragma once

// Start kftrain-trainer ranks as real processes and read what they print.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/files.h"
#include "util/subprocess.h"

namespace trainer_test {

// The built kftrain-trainer: compiled into one generated file (test/trainer/CMakeLists.txt),
// not into every test's command line, so a clone elsewhere recompiles that file alone.
const char* trainer_binary();

// Return a TCP port that was free a moment ago on 127.0.0.1.
inline int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

// Hold one started trainer process and the files holding its output.
struct Rank {
    pid_t pid = 0;
    std::string out_path;
    std::string err_path;
    // Exit code once the process has been reaped.
    mutable std::optional<int> code;
    // The process itself, shared by the copies of this Rank.
    std::shared_ptr<kftrain::util::Process> process;
};

// The test-support library's temporary directories and file helpers (support/files.h), which
// every process test uses.
using kftrain::test::make_temp_dir;
using kftrain::test::read_bytes;
using kftrain::test::write_file;

// Parse the JSON lines of a file, skipping anything else.
inline std::vector<nlohmann::json> json_lines(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::istringstream lines(read_bytes(path));
    std::string line;
    while (std::getline(lines, line)) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.is_object()) {
            out.push_back(j);
        }
    }
    return out;
}

// Return the events named event from a rank's JSON output.
inline std::vector<nlohmann::json> events(const Rank& r, const std::string& event) {
    std::vector<nlohmann::json> out;
    for (auto& j : json_lines(r.out_path)) {
        if (j.value("event", "") == event) {
            out.push_back(j);
        }
    }
    return out;
}

// Start the trainer with args and extra environment; output goes to files named after tag
// (emptied first).
inline Rank start_trainer(const std::string& dir, const std::string& tag,
                          const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env) {
    kftrain::util::SpawnOptions spec;
    spec.argv.push_back(trainer_binary());
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = env;
    spec.env["OMP_NUM_THREADS"] = "1";
    const auto out_path = dir + "/" + tag + ".out";
    const auto err_path = dir + "/" + tag + ".err";
    write_file(out_path, "");
    write_file(err_path, "");
    spec.stdin_from = kftrain::util::Redirect::inherit();
    spec.stdout_to = kftrain::util::Redirect::file(out_path);
    spec.stderr_to = kftrain::util::Redirect::file(err_path);
    auto started = kftrain::util::Process::spawn(spec);
    REQUIRE(started.ok());
    auto process = std::make_shared<kftrain::util::Process>(std::move(*started));
    return Rank{process->pid(), out_path, err_path, std::nullopt, process};
}

// Return a rank's exit code (128 + signal when killed), waiting at most timeout for it;
// nullopt while it is still running. A zero timeout only looks.
inline std::optional<int> poll_exit(const Rank& r, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (auto status = r.process->try_wait()) {
            return status->as_shell_code();
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return std::nullopt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

// Start world ranks of one job on 127.0.0.1 with a fresh port.
inline std::vector<Rank> start_job(const std::string& dir, int world,
                                   const std::vector<std::string>& args,
                                   std::map<std::string, std::string> env = {}) {
    env["MASTER_ADDR"] = "127.0.0.1";
    env["MASTER_PORT"] = std::to_string(free_port());
    env["WORLD_SIZE"] = std::to_string(world);
    std::vector<Rank> ranks;
    for (int r = 0; r < world; ++r) {
        env["RANK"] = std::to_string(r);
        ranks.push_back(start_trainer(dir, "rank" + std::to_string(r), args, env));
    }
    return ranks;
}

// Wait for a rank to exit and return its code; fail the test after timeout.
inline int wait_exit(const Rank& r, std::chrono::seconds timeout) {
    if (!r.code) {
        r.code = poll_exit(r, timeout);
    }
    if (!r.code) {
        r.process->signal(SIGKILL);
        poll_exit(r, std::chrono::seconds(5));
        FAIL("trainer still running after " << timeout.count()
                                            << "s; stderr: " << read_bytes(r.err_path));
    }
    return *r.code;
}

// Wait for every rank to exit with code (each within 180 s), showing its stderr on failure.
inline void wait_all(const std::vector<Rank>& ranks, int code = 0) {
    for (const auto& r : ranks) {
        INFO(read_bytes(r.err_path));
        CHECK(wait_exit(r, std::chrono::seconds(180)) == code);
    }
}

// Poll a rank's stdout until it holds needle; false when the deadline passes first.
inline bool wait_for_output(const Rank& r, const std::string& needle,
                            std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (read_bytes(r.out_path).find(needle) != std::string::npos) {
            return true;
        }
        if (r.code || (r.code = poll_exit(r, std::chrono::milliseconds(20)))) {
            return read_bytes(r.out_path).find(needle) != std::string::npos;
        }
    }
    return false;
}

// Read a parameter dump (raw float32) written with KFTRAIN_PARAMS_OUT.
inline std::vector<float> read_params(const std::string& path) {
    const auto bytes = read_bytes(path);
    std::vector<float> out(bytes.size() / sizeof(float));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
    return out;
}

// Run a 2-rank mlp --benchmark (one thread each) with these flags besides, and return the
// profile rank 0 wrote; every rank must exit 0.
inline nlohmann::json two_rank_mlp_profile(const std::string& dir,
                                           const std::vector<std::string>& flags) {
    std::vector<std::string> args{"--model",   "mlp", "--profile-out", dir + "/profile.json",
                                  "--threads", "1"};
    args.insert(args.end(), flags.begin(), flags.end());
    for (const auto& r : start_job(dir, 2, args)) {
        INFO(read_bytes(r.err_path));
        CHECK(wait_exit(r, std::chrono::seconds(60)) == 0);
    }
    return nlohmann::json::parse(read_bytes(dir + "/profile.json"));
}

}  // namespace trainer_test
