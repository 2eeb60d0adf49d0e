#include "backend/local/logs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <optional>
#include <thread>

#include "backend/local/process/stop.h"
#include "backend/local/state/log_store.h"
#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "job/interrupt.h"
#include "util/time_text.h"

namespace kftrain::backend::local {
namespace {

constexpr auto k_follow_poll = std::chrono::milliseconds(200);

// Tells whether a followed job has ended and its supervisor wrote its last line. state.json
// is read only until it names the supervisor; after that, each look is at the process alone.
class JobEnd {
  public:
    explicit JobEnd(std::string job) : m_job(std::move(job)) {}

    bool reached() {
        if (!m_supervisor) {
            auto state = read_job_state(m_job);
            if (!state) {
                return true;  // deleted
            }
            if (state->supervisor_pid == 0) {
                return state->phase == "Succeeded" || state->phase == "Failed";
            }
            m_supervisor = std::move(*state);
        }
        return !supervisor_alive(*m_supervisor);
    }

  private:
    std::string m_job;
    std::optional<JobState> m_supervisor;  // the state that named the supervisor
};

// Return the previous attempt of each selected replica that restarted; a notice for each
// that did not, and an error when none did.
util::Result<std::map<std::string, AttemptWindow>> previous_attempts(const std::string& job,
                                                                     const JobState& state,
                                                                     const job::LogOptions& options,
                                                                     const job::LogSink& sink) {
    std::map<std::string, AttemptWindow> windows;
    for (const auto& replica : state.replicas) {
        if (!replica_matches(options.replica, replica.name)) {
            continue;
        }
        if (replica.previous_started.empty()) {
            sink({replica.name, job::k_no_previous_attempt, true});
        } else {
            windows[replica.name] = {replica.previous_started, replica.previous_finished};
        }
    }
    if (windows.empty()) {
        return util::error(job::no_restart_message(job, options.replica), k_exit_not_found);
    }
    return windows;
}

// Return the time --since names (0: not given); exit 2 for a value that is no duration.
util::Result<std::time_t> since_time_of(const job::LogOptions& options) {
    if (options.since.empty()) {
        return std::time_t{0};
    }
    auto seconds = util::parse_duration_flag("--since", options.since, util::k_any_duration);
    if (!seconds) {
        return util::error(seconds.error(), k_exit_bad_input);
    }
    return std::time(nullptr) - static_cast<std::time_t>(*seconds);
}

// Check that --replica names a replica of the job (exit 3 naming those it has).
util::Status check_replica(const std::string& job, const JobState& state,
                           const job::LogOptions& options) {
    std::vector<std::string> names;
    for (const auto& replica : state.replicas) {
        names.push_back(replica.name);
    }
    if (std::none_of(names.begin(), names.end(), [&](const std::string& name) {
            return replica_matches(options.replica, name);
        })) {
        return util::error(job::no_replica_message(job, options.replica, names), k_exit_not_found);
    }
    return util::ok_status();
}

// Emit what the log holds now, read a slice at a time: with a tail, only the tail is kept.
template <typename Select, typename Emit>
void read_to_end(LogCursor& cursor, std::optional<int> tail, const Select& select,
                 const Emit& emit) {
    std::vector<LogRecord> kept;
    do {
        auto slice = select(cursor.next());
        if (tail) {
            kept.insert(kept.end(), slice.begin(), slice.end());
            kept = tail_per_replica(kept, *tail);
        } else {
            emit(slice);
        }
    } while (!cursor.caught_up());
    emit(kept);
}

}  // namespace

util::Status read_logs(const std::string& job, const job::LogOptions& options,
                       const job::LogSink& sink) {
    auto since = since_time_of(options);
    if (!since) {
        return since.error_value();
    }
    const std::time_t since_time = *since;
    auto emit = [&](const std::vector<LogRecord>& records) {
        for (const auto& record : records) {
            sink(to_log_line(record, options.timestamps));
        }
    };
    std::optional<JobState> state;
    if (!options.replica.empty() || options.previous) {
        auto read = read_job_state(job);
        if (!read) {
            return read.error_value();
        }
        state = std::move(*read);
    }
    if (!options.replica.empty()) {
        if (auto found = check_replica(job, *state, options); !found) {
            return found;
        }
    }
    std::map<std::string, AttemptWindow> previous;
    if (options.previous) {
        auto windows = previous_attempts(job, *state, options, sink);
        if (!windows) {
            return windows.error_value();
        }
        previous = std::move(*windows);
    }
    auto select = [&](const std::vector<LogRecord>& records) {
        std::vector<LogRecord> out;
        for (const auto& record : records) {
            if (record_selected(record, options, since_time) &&
                (!options.previous || in_attempt(record, previous))) {
                out.push_back(record);
            }
        }
        return out;
    };
    LogCursor cursor(combined_log_path(job));
    JobEnd end(job);
    read_to_end(cursor, options.tail, select, emit);
    while (options.follow && !options.previous) {  // a previous attempt is over
        if (end.reached()) {
            read_to_end(cursor, std::nullopt, select, emit);  // all it wrote before it ended
            break;
        }
        emit(select(cursor.next()));
        if (job::interrupt_requested()) {
            return util::error("interrupted", k_exit_interrupted);
        }
        std::this_thread::sleep_for(k_follow_poll);
    }
    return util::ok_status();
}

}  // namespace kftrain::backend::local
