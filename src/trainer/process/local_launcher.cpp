#include "trainer/process/local_launcher.h"

#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "trainer/process/signals.h"
#include "util/subprocess.h"

namespace kftrain::trainer::process {
namespace {

constexpr auto k_poll = std::chrono::milliseconds(100);
constexpr auto k_reap_every = std::chrono::milliseconds(10);
constexpr auto k_grace = std::chrono::seconds(30);

void signal_all(const std::vector<util::Process>& running, int sig) {
    for (const auto& p : running) {
        p.signal(sig);
    }
}

// Wait at most k_poll for one of running to end; take it out and return its exit code.
std::optional<int> reap_one(std::vector<util::Process>& running) {
    const auto deadline = std::chrono::steady_clock::now() + k_poll;
    while (true) {
        for (auto it = running.begin(); it != running.end(); ++it) {
            if (auto status = it->try_wait()) {
                running.erase(it);
                return status->as_shell_code();
            }
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return std::nullopt;
        }
        std::this_thread::sleep_for(k_reap_every);
    }
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
        // The node's rank, which the spawned process would otherwise read from RANK (its
        // global rank) where the operator left PET_NODE_RANK unset.
        {"PET_NODE_RANK", std::to_string(env.node_rank)},
        {k_spawned_env, "1"},
    };
}

int run_local_processes(const DistEnv& env, const std::vector<std::string>& args) {
    install_stop_handlers();
    util::SpawnOptions spawn;
    spawn.argv = {std::filesystem::read_symlink("/proc/self/exe").string()};
    spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
    spawn.stdin_from = util::Redirect::inherit();
    spawn.stdout_to = util::Redirect::inherit();
    spawn.stderr_to = util::Redirect::inherit();
    std::vector<util::Process> running;
    for (int i = 0; i < env.spawn_local; ++i) {
        spawn.env = local_process_env(env, i);
        auto started = util::Process::spawn(spawn);
        if (!started.ok()) {
            std::cerr << "kftrain-trainer: error: " << started.error() << std::endl;
            signal_all(running, SIGTERM);
            return 1;
        }
        running.push_back(std::move(*started));
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
        const auto code = reap_one(running);
        if (code && *code != 0 && result == 0) {
            result = *code;
            stop_deadline = std::chrono::steady_clock::now() + k_grace;
        }
    }
    return result;
}

}  // namespace kftrain::trainer::process
