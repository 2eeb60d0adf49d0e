#include "backend/local/suspend.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include "backend/local/process/stop.h"
#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"

namespace kftrain::backend::local {

std::string suspend_request_path(const std::string& name) {
    return job_dir(name) + "/suspend.request";
}

bool suspend_requested(const std::string& name) {
    return ::access(suspend_request_path(name).c_str(), F_OK) == 0;
}

util::Status request_suspend(const JobState& state) {
    if (state.phase == "Suspended") {
        return util::ok_status();
    }
    if (!supervisor_alive(state)) {
        return util::error(fmt::format("cannot suspend job {}: its supervisor is not running "
                                       "(it is {}); see kftrain status {} --local",
                                       state.name, state.phase, state.name),
                           k_exit_bad_input);
    }
    auto written = util::write_file_atomic(suspend_request_path(state.name), "suspend\n");
    if (!written) {
        return written;
    }
    ::kill(static_cast<pid_t>(state.supervisor_pid), SIGTERM);
    return util::ok_status();
}

JobState resumed_state(JobState state, const std::string& now, long long now_ns) {
    state.phase = "Created";
    if (!state.queue.empty()) {
        state.queued = now;
        state.queue_order = now_ns;
        state.admitted.clear();
    }
    state.reason.clear();
    state.message.clear();
    state.suspended.clear();
    state.supervisor_pid = 0;
    state.supervisor_ticks = 0;
    for (auto& replica : state.replicas) {
        replica.state = "Pending";
        replica.reason.clear();
        replica.pid = 0;
        replica.start_ticks = 0;
        replica.exit_code.reset();
    }
    return state;
}

}  // namespace kftrain::backend::local
