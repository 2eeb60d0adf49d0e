#include "cli/local/stop.h"

#include <signal.h>

#include <chrono>
#include <thread>

#include "cli/local/proc_info.h"

namespace kftrain::cli::local {
namespace {

// The supervisor's own grace (10s) for the replicas, and some time to write its state.
constexpr auto k_supervisor_grace = std::chrono::seconds(15);
constexpr auto k_kill_wait = std::chrono::seconds(5);
constexpr auto k_poll = std::chrono::milliseconds(50);

bool any_replica_alive(const JobState& state) {
    for (const auto& r : state.replicas) {
        if (process_alive(r.pid, r.start_ticks)) {
            return true;
        }
    }
    return false;
}

template <typename Pred>
bool wait_until(Pred done, std::chrono::steady_clock::duration limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(k_poll);
    }
    return true;
}

}  // namespace

bool supervisor_alive(const JobState& state) {
    return process_alive(state.supervisor_pid, state.supervisor_ticks);
}

void stop_processes(const JobState& state) {
    if (supervisor_alive(state)) {
        ::kill(static_cast<pid_t>(state.supervisor_pid), SIGTERM);
        bool ended = wait_until([&] { return !supervisor_alive(state); }, k_supervisor_grace);
        if (!ended) {
            ::kill(static_cast<pid_t>(state.supervisor_pid), SIGKILL);
        }
    }
    // Replicas the supervisor could not stop (or left when it was killed).
    for (const auto& r : state.replicas) {
        if (process_alive(r.pid, r.start_ticks)) {
            ::kill(-static_cast<pid_t>(r.pid), SIGKILL);
            ::kill(static_cast<pid_t>(r.pid), SIGKILL);
        }
    }
    wait_until([&] { return !any_replica_alive(state) && !supervisor_alive(state); }, k_kill_wait);
}

}  // namespace kftrain::cli::local
