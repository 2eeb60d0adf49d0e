#include "trainer/local_launcher.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "trainer/process.h"
#include "trainer/signals.h"

namespace kftrain::trainer {
namespace {

constexpr auto k_poll = std::chrono::milliseconds(100);
constexpr auto k_grace = std::chrono::seconds(30);

void signal_all(const std::vector<pid_t>& pids, int sig) {
    for (pid_t pid : pids) {
        ::kill(pid, sig);
    }
}

void erase_pid(std::vector<pid_t>& pids, pid_t pid) {
    pids.erase(std::remove(pids.begin(), pids.end(), pid), pids.end());
}

}  // namespace

std::map<std::string, std::string> local_process_env(const DistEnv& env, int local_rank) {
    return {
        {"RANK", std::to_string(env.node_rank * env.spawn_local + local_rank)},
        {"LOCAL_RANK", std::to_string(local_rank)},
        {"WORLD_SIZE", std::to_string(env.world_size)},
        {"LOCAL_WORLD_SIZE", std::to_string(env.spawn_local)},
        {"MASTER_ADDR", env.master_addr},
        {"MASTER_PORT", std::to_string(env.master_port)},
        {k_spawned_env, "1"},
    };
}

int run_local_processes(const DistEnv& env, const std::vector<std::string>& args) {
    install_stop_handlers();
    std::vector<std::string> argv{std::filesystem::read_symlink("/proc/self/exe").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<pid_t> running;
    for (int i = 0; i < env.spawn_local; ++i) {
        auto pid = spawn_process(SpawnSpec{argv, local_process_env(env, i), "", ""});
        if (!pid.ok()) {
            std::cerr << "kftrain-trainer: error: " << pid.error() << std::endl;
            signal_all(running, SIGTERM);
            return 1;
        }
        running.push_back(*pid);
    }
    int result = 0;
    bool forwarded = false;
    auto stop_deadline = std::chrono::steady_clock::time_point::max();
    while (!running.empty()) {
        if (stop_requested() && !forwarded) {
            signal_all(running, stop_signal());
            forwarded = true;
        }
        if (std::chrono::steady_clock::now() > stop_deadline) {
            signal_all(running, SIGKILL);
        }
        auto exited = wait_any(running, k_poll);
        if (!exited) {
            continue;
        }
        erase_pid(running, exited->first);
        if (exited->second != 0 && result == 0) {
            result = exited->second;
            stop_deadline = std::chrono::steady_clock::now() + k_grace;
        }
    }
    return result;
}

}  // namespace kftrain::trainer
