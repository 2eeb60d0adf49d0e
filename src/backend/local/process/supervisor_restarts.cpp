// The supervisor's restarts: a replica's own when its back-off is over, and a TrainJob's
// restart of every node (its JobSet's) once all of them have stopped.
#include "backend/local/process/exit_rules.h"
#include "backend/local/process/supervisor.h"

namespace kftrain::backend::local {

void Supervisor::restart_job_when_stopped() {
    for (const auto& slot : m_slots) {
        if (slot.process) {
            return;
        }
    }
    // Every node starts again, those that had completed too: JobSet recreates all its Jobs.
    m_restarting_job = false;
    m_term_at.reset();
    m_kill_at.reset();
    const int delay = restart_delay_seconds(m_state.job_restarts - 1);
    for (size_t i = 0; i < m_slots.size(); ++i) {
        m_state.replicas[i].state = "Restarting";
        m_state.replicas[i].restarts += 1;
        m_slots[i].restart_at = Clock::now() + std::chrono::seconds(delay);
    }
    m_dirty = true;
}

void Supervisor::start_due_restarts() {
    auto now = Clock::now();
    bool pending = false;
    for (size_t i = 0; i < m_slots.size(); ++i) {
        auto& at = m_slots[i].restart_at;
        if (at && now >= *at) {
            start_replica(i);
        }
        pending = pending || m_slots[i].restart_at.has_value();
    }
    if (!pending && m_state.phase == "Restarting" && !m_outcome) {
        m_state.phase = "Running";
        m_dirty = true;
    }
}

}  // namespace kftrain::backend::local
