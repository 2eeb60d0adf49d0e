#include "backend/local/process/keeper.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "backend/local/state/job_state.h"
#include "backend/local/state/replica_exits.h"

namespace kftrain::backend::local {
namespace {

// Return a child's end as a shell's exit code (128+N for a death by signal N).
int shell_code(const siginfo_t& info) {
    return info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
}

// Record the exit of an adopted child that is one of the job's replicas (by its pid in
// state.json, read now: a replica restarted by the supervisor has a new one).
void record_if_replica(const std::string& job, const siginfo_t& info) {
    auto state = read_job_state(job);
    if (!state) {
        return;
    }
    for (const auto& replica : state->replicas) {
        if (replica.pid == info.si_pid) {
            auto recorded = record_replica_exit(job, replica.name, shell_code(info));
            if (!recorded) {
                std::cerr << "kftrain supervisor keeper: " << recorded.error() << std::endl;
            }
            return;
        }
    }
}

}  // namespace

std::optional<int> keep_supervisor(const std::string& job) {
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        return std::nullopt;  // no adoption: nothing to keep
    }
    const pid_t supervisor = ::fork();
    if (supervisor < 0) {
        std::cerr << "kftrain supervisor keeper: cannot fork: " << std::strerror(errno)
                  << std::endl;
        return std::nullopt;
    }
    if (supervisor == 0) {
        return std::nullopt;
    }
    ::signal(SIGTERM, SIG_IGN);  // the supervisor's stop is the supervisor's to handle
    int supervisor_code = 1;
    while (true) {
        siginfo_t info{};
        if (::waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
            if (errno == EINTR) {
                continue;
            }
            break;  // ECHILD: the supervisor and everything it left are gone
        }
        if (info.si_pid == supervisor) {
            supervisor_code = shell_code(info);
        } else {
            record_if_replica(job, info);
        }
        ::waitpid(info.si_pid, nullptr, 0);
    }
    return supervisor_code;
}

}  // namespace kftrain::backend::local
