#include "backend/local/logs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <optional>
#include <set>
#include <thread>

#include "backend/local/process/stop.h"
#include "backend/local/state/job_state.h"
#include "backend/local/state/last_word.h"
#include "backend/local/state/log_store.h"
#include "backend/local/state/state_dir.h"
#include "job/exit_codes.h"
#include "util/signals/interrupt.h"
#include "util/time_text.h"

namespace kftrain::backend::local {
namespace {

constexpr auto k_follow_poll = std::chrono::milliseconds(200);
constexpr int k_polls_per_look = 10;  // following many: the job's state read every 2 s

// Following many replicas: the ones followed, the lead and any that failed or restarted,
// looked up again in the job's state as it runs.
class FollowedAmongMany {
  public:
    // Start following some of the job's replicas when it has many (and not --all).
    FollowedAmongMany(const JobState& state, const job::LogOptions& options, const std::string& job,
                      const job::LogSink& sink) {
        size_t matching = 0;
        std::string lead;
        for (const auto& replica : state.replicas) {
            matching += replica_matches(options.replica, replica.name) ? 1 : 0;
            lead = is_lead_replica(replica) && lead.empty() ? replica.name : lead;
        }
        m_active = options.follow && !options.all && matching > job::k_many_replicas;
        if (m_active) {
            sink({job, job::following_many_note(matching, lead), true});
            look(state);
        }
    }

    // Add the replicas that failed or restarted since the last look.
    void look(const JobState& state) {
        for (const auto& replica : state.replicas) {
            if (is_lead_replica(replica) || replica.restarts > 0 || replica.state == "Failed") {
                m_names.insert(replica.name);
            }
        }
    }

    bool active() const { return m_active; }
    bool follows(const std::string& replica) const {
        return !m_active || m_names.count(replica) != 0;
    }

  private:
    bool m_active = false;
    std::set<std::string> m_names;
};

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

// Return the notice that a job's logs were cut, with why and where.
std::string log_cut_notice(const std::string& job, const std::string& why) {
    return fmt::format(
        "the job's logs were cut: {}; what its replicas printed after that is not in {}", why,
        logs_dir(job));
}

// Tells, once, that the job's logs were cut: the supervisor could not write them (a full
// disk), as it recorded in state.json or, when that could not be written either, in its last
// word (supervisor.json).
class LogCut {
  public:
    explicit LogCut(std::string job) : m_job(std::move(job)) {}

    // Send the notice to sink if the logs were cut and it was not sent yet.
    void tell(const job::LogSink& sink) {
        if (m_told) {
            return;
        }
        std::string why;
        if (auto state = read_job_state(m_job)) {
            why = state->logs_error;
        }
        if (auto word = read_last_word(m_job); why.empty() && word) {
            why = word->logs_error;
        }
        if (!why.empty()) {
            m_told = true;
            sink({m_job, log_cut_notice(m_job, why), true});
        }
    }

  private:
    std::string m_job;
    bool m_told = false;
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

// Emit what the log gets until the job ends; following many, look again at which replicas.
template <typename Select, typename Emit>
util::Status follow_to_end(const std::string& job, LogCursor& cursor, const Select& select,
                           const Emit& emit, FollowedAmongMany& followed,
                           const job::LogSink& sink) {
    JobEnd end(job);
    LogCut cut(job);
    for (int polls = 1;; ++polls) {
        if (end.reached()) {
            read_to_end(cursor, std::nullopt, select, emit);  // all it wrote before it ended
            cut.tell(sink);
            return util::ok_status();
        }
        if (polls % k_polls_per_look == 0) {
            cut.tell(sink);
            if (followed.active()) {
                if (auto now = read_job_state(job)) {
                    followed.look(*now);
                }
            }
        }
        emit(select(cursor.next()));
        if (util::interrupt_requested()) {
            return util::error("interrupted", k_exit_interrupted);
        }
        std::this_thread::sleep_for(k_follow_poll);
    }
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
    auto state = read_job_state(job);
    if (!state) {
        return state.error_value();
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
    job::LogOptions read = options;
    const size_t matching = static_cast<size_t>(std::count_if(
        state->replicas.begin(), state->replicas.end(),
        [&](const ReplicaState& r) { return replica_matches(options.replica, r.name); }));
    if (auto note = job::bound_many_replicas(read, matching); !note.empty()) {
        sink({job, note, true});
    }
    FollowedAmongMany followed(*state, options, job, sink);
    auto select = [&](const std::vector<LogRecord>& records) {
        std::vector<LogRecord> out;
        for (const auto& record : records) {
            if (record_selected(record, options, since_time) &&
                (!options.previous || in_attempt(record, previous)) &&
                followed.follows(record.replica)) {
                out.push_back(record);
            }
        }
        return out;
    };
    LogCursor cursor(combined_log_path(job));
    read_to_end(cursor, read.tail, select, emit);
    if (!options.follow || options.previous) {  // a previous attempt is over: read once
        LogCut(job).tell(sink);
        return util::ok_status();
    }
    return follow_to_end(job, cursor, select, emit, followed, sink);
}

}  // namespace kftrain::backend::local
