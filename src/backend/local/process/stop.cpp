#include "backend/local/process/stop.h"

#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "backend/local/state/last_word.h"
#include "util/json_text.h"
#include "util/process_info.h"

namespace kftrain::backend::local {
namespace {

// The supervisor's own grace (10s) for the replicas, and some time to write its state.
constexpr auto k_supervisor_grace = std::chrono::seconds(15);
constexpr auto k_kill_wait = std::chrono::seconds(5);
constexpr auto k_poll = std::chrono::milliseconds(50);

bool any_replica_alive(const JobState& state) {
    for (const auto& r : state.replicas) {
        if (replica_alive(r)) {
            return true;
        }
    }
    return false;
}

// Return the pid and start time of an object of state.json, where both are numbers.
std::pair<long long, unsigned long long> pid_of(const nlohmann::json& doc) {
    if (!doc.is_object()) {
        return {0, 0};
    }
    auto pid = doc.find("pid");
    auto ticks = doc.find("start_ticks");
    if (pid == doc.end() || ticks == doc.end() || !pid->is_number_integer() ||
        !ticks->is_number_unsigned()) {
        return {0, 0};
    }
    return {pid->get<long long>(), ticks->get<unsigned long long>()};
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
    return state.supervisor_ticks != 0 &&
           util::process_alive(state.supervisor_pid, state.supervisor_ticks);
}

bool replica_alive(const ReplicaState& replica) {
    return replica.start_ticks != 0 && util::process_alive(replica.pid, replica.start_ticks);
}

bool job_active(const JobState& state) {
    return supervisor_alive(state) || any_replica_alive(state);
}

Observed observe_job(const JobState& state) {
    Observed seen;
    seen.supervisor_alive = supervisor_alive(state);
    for (const auto& replica : state.replicas) {
        seen.replica_alive.push_back(replica_alive(replica));
    }
    seen.last_word = read_last_word(state.name);
    return seen;
}

JobState salvage_processes(const std::string& state_text) {
    JobState found;
    auto doc = util::parse_untrusted_json(state_text);
    if (!doc.is_object()) {
        return found;
    }
    if (doc.contains("supervisor")) {
        std::tie(found.supervisor_pid, found.supervisor_ticks) = pid_of(doc["supervisor"]);
    }
    if (doc.contains("replicas") && doc["replicas"].is_array()) {
        for (const auto& item : doc["replicas"]) {
            ReplicaState replica;
            std::tie(replica.pid, replica.start_ticks) = pid_of(item);
            if (replica.pid > 0 && replica.start_ticks != 0) {
                found.replicas.push_back(replica);
            }
        }
    }
    return found;
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
        if (replica_alive(r)) {
            ::kill(-static_cast<pid_t>(r.pid), SIGKILL);
            ::kill(static_cast<pid_t>(r.pid), SIGKILL);
        }
    }
    wait_until([&] { return !any_replica_alive(state) && !supervisor_alive(state); }, k_kill_wait);
}

}  // namespace kftrain::backend::local
