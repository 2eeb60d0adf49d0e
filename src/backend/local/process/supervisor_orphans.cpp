// What a replica leaves behind: a program that double-forks with setsid (a daemon, a data
// loader's server) leaves its replica's process group and session, and would outlive the job.
// The supervisor is their subreaper: orphans of its replicas become its children, wherever
// they moved, so it reaps them while the job runs and kills them when the job ends, as a
// container's processes end with it. Each replica's processes carry its mark in their
// environment (KFTRAIN_LOCAL_REPLICA), so what one run of a replica left ends when that run
// does, before the replica restarts, as in a container.
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <vector>

#include "backend/local/process/supervisor.h"
#include "util/proc_stat.h"

namespace kftrain::backend::local {

void Supervisor::adopt_orphans() {
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        std::cerr << "kftrain supervisor: cannot adopt what replicas leave behind (prctl): "
                  << std::strerror(errno) << std::endl;
    }
}

std::vector<long long> Supervisor::orphans() const {
    std::vector<long long> out;
    for (long long child : util::child_processes(::getpid(), false)) {
        const bool replica = std::any_of(m_slots.begin(), m_slots.end(), [child](const Slot& s) {
            return s.process && s.process->pid() == child;
        });
        if (!replica) {
            out.push_back(child);
        }
    }
    return out;
}

void Supervisor::reap_orphans() {
    // Peek at the children that ended (without reaping: a replica's end is its slot's to
    // read), and reap each that is no replica. No /proc scan: this runs every poll.
    while (true) {
        siginfo_t info{};
        if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
            return;
        }
        const pid_t ended = info.si_pid;
        const bool replica = std::any_of(m_slots.begin(), m_slots.end(), [ended](const Slot& s) {
            return s.process && s.process->pid() == ended;
        });
        if (replica) {
            return;  // reaped by reap() at its next turn
        }
        ::waitpid(ended, nullptr, WNOHANG);
    }
}

std::string Supervisor::replica_mark(size_t i) const {
    return fmt::format("{}={}/{}", k_replica_mark_variable, m_state.name, m_state.replicas[i].name);
}

void Supervisor::kill_orphans(const std::string& mark) {
    // Every descendant (an orphan's own children too), then each reaped as it dies.
    std::vector<long long> left = orphans();
    if (!mark.empty()) {
        left.erase(std::remove_if(left.begin(), left.end(),
                                  [&](long long pid) { return !util::environment_has(pid, mark); }),
                   left.end());
    }
    for (long long orphan : left) {
        for (long long below : util::child_processes(orphan, true)) {
            ::kill(static_cast<pid_t>(below), SIGKILL);
        }
        ::kill(static_cast<pid_t>(orphan), SIGKILL);
    }
    for (long long orphan : left) {
        ::waitpid(static_cast<pid_t>(orphan), nullptr, 0);
    }
    if (!left.empty()) {
        std::cerr << "kftrain supervisor: stopped " << left.size() << " process(es) "
                  << (mark.empty() ? "the replicas" : mark.substr(mark.rfind('/') + 1))
                  << " left running" << std::endl;
    }
}

}  // namespace kftrain::backend::local
