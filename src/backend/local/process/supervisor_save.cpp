// The supervisor's record of its job: state.json, written at most once a second while the job
// runs and at once on a change that matters, and the last word (supervisor.json) when it
// cannot be written (a full disk); the first write to the logs that failed goes in it too.
#include <iostream>

#include "backend/local/process/supervisor.h"
#include "backend/local/state/last_word.h"

namespace kftrain::backend::local {
namespace {

constexpr auto k_save_interval = std::chrono::seconds(1);

}  // namespace

void Supervisor::note_log_error() {
    if (m_state.logs_error.empty() && !m_log.error().empty()) {
        m_state.logs_error = m_log.error();
        std::cerr << "kftrain supervisor: " << m_state.logs_error << std::endl;
        m_dirty = true;
    }
}

void Supervisor::save(bool force) {
    note_log_error();
    auto now = Clock::now();
    if (!force && (!m_dirty || now - m_saved < k_save_interval)) {
        return;
    }
    keep_text_progress();
    auto written = write_job_state(m_state);
    if (!written && written.error() != m_save_error) {
        std::cerr << "kftrain supervisor: " << written.error() << std::endl;
        m_save_error = written.error();
        write_last_word(m_state.name, LastWord{m_save_error, "", "", "", "", m_state.logs_error});
    } else if (written && !m_save_error.empty()) {
        m_save_error.clear();
        write_last_word(m_state.name, LastWord{});
    }
    m_dirty = false;
    m_saved = now;
}

void Supervisor::save_final() {
    note_log_error();
    keep_text_progress();
    auto written = write_job_state(m_state);
    if (written) {
        if (!m_save_error.empty()) {
            write_last_word(m_state.name, LastWord{});
        }
        return;
    }
    std::cerr << "kftrain supervisor: " << written.error() << std::endl;
    auto noted = write_last_word(
        m_state.name, LastWord{written.error(), m_state.phase, m_state.reason, m_state.message,
                               m_state.finished, m_state.logs_error});
    if (!noted) {
        std::cerr << "kftrain supervisor: " << noted.error() << std::endl;
    }
}

}  // namespace kftrain::backend::local
