#include "backend/local/usage.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "manifest/k8s/quantity.h"
#include "usage/process_tree.h"
#include "util/proc_stat.h"

namespace kftrain::backend::local {
namespace {

std::optional<double> quantity_or_none(const std::string& text) {
    return text.empty() ? std::nullopt : manifest::parse_quantity(text);
}

job::ReplicaUsage local_asks(const JobState& state, const job::ReplicaStatus& replica) {
    job::ReplicaUsage out;
    out.name = replica.name;
    out.pid = replica.pid;
    out.state = replica.state;
    out.restarts = replica.restarts;
    out.cpu_request = quantity_or_none(state.cpu);
    out.memory_request = quantity_or_none(state.memory);
    out.cpu_limit = quantity_or_none(state.cpu_limit.empty() ? state.cpu : state.cpu_limit);
    out.memory_limit =
        quantity_or_none(state.memory_limit.empty() ? state.memory : state.memory_limit);
    out.gpus = state.gpus;
    return out;
}

// The start time the supervisor recorded for a replica's process (0: none).
unsigned long long recorded_start(const JobState& state, const std::string& replica) {
    for (const ReplicaState& r : state.replicas) {
        if (r.name == replica) {
            return r.start_ticks;
        }
    }
    return 0;
}

// Whether a replica's process is in a reading and is the one the supervisor started.
bool replica_process_in(const usage::ProcessTable& table, const job::ReplicaUsage& replica,
                        unsigned long long start_ticks) {
    auto it = table.find(replica.pid);
    return replica.pid > 0 && it != table.end() && it->second.state != 'Z' &&
           (start_ticks == 0 || it->second.start_ticks == start_ticks);
}

}  // namespace

job::JobUsage measure_local_usage(const JobState& state, const job::JobStatus& status) {
    job::JobUsage out{state.name, state.namespace_, state.kind, "/proc", {}, {}};
    if (!state.has_resources) {
        out.warnings.push_back("the job's state predates resources: requests and limits unknown");
    }
    const usage::ProcessTable before = util::read_all_proc_stats();
    const auto started = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(k_cpu_interval_s));
    const usage::ProcessTable after = util::read_all_proc_stats();
    const double interval =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    const long long page = ::sysconf(_SC_PAGESIZE);
    for (const job::ReplicaStatus& replica : status.replicas) {
        job::ReplicaUsage row = local_asks(state, replica);
        const unsigned long long start = recorded_start(state, replica.name);
        if (replica.state != "Running" || replica.pid <= 0) {
            out.warnings.push_back(
                fmt::format("{}: no process runs ({})", replica.name, replica.state));
        } else if (!replica_process_in(before, row, start) ||
                   !replica_process_in(after, row, start)) {
            out.warnings.push_back(fmt::format("{}: its process {} ended while it was measured",
                                               replica.name, replica.pid));
        } else {
            row.cpu_cores = usage::tree_cpu_cores(before, after, replica.pid, ticks, interval);
            row.memory_bytes = usage::tree_resident_bytes(after, replica.pid, page);
        }
        out.replicas.push_back(std::move(row));
    }
    return out;
}

}  // namespace kftrain::backend::local
