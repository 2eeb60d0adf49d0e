#pragma once

#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "backend/local/process/exit_rules.h"
#include "backend/local/process/launch.h"
#include "backend/local/state/job_state.h"
#include "backend/local/state/log_store.h"
#include "backend/local/status_server/status_endpoint.h"
#include "progress/progress_reader.h"
#include "util/subprocess.h"

namespace kftrain::backend::local {

// The variable every process of a local replica's run carries, "<job>/<replica>": what a run
// left behind outside its process group is found by it and stopped when the run ends.
inline constexpr const char* k_replica_mark_variable = "KFTRAIN_LOCAL_REPLICA";

// Runs the replicas of one local job until it ends: starts each as its own
// process group with its launch (launch.h) in a clean environment (clean_env.h), copies their
// output to the job's logs, applies the restart rules, and keeps state.json
// current. Succeeded when the Master exits 0; Failed otherwise, and then the
// remaining replicas get SIGTERM, and SIGKILL after a grace period. A job of a local queue
// first waits for its turn (local_queue.h).
class Supervisor {
  public:
    // Take over a job whose state.json submit has written, with the replicas' launch (empty:
    // the argv and env of state.json).
    Supervisor(JobState state, std::vector<ReplicaLaunch> launch);

    // Run the job to its end; return 0 when it Succeeded, 1 when it Failed.
    int run();

  private:
    using Clock = std::chrono::steady_clock;

    struct Stream {
        int fd = -1;
        std::string partial;
        bool open = false;
        bool cutting = false;  // dropping the rest of a line cut at k_max_line
        // A line redrawn with carriage returns (a progress bar): every drawing is read for
        // progress, and the log keeps one drawing a second and the line's last
        // (supervisor_output.cpp).
        bool redrawn = false;   // the line being read has had a '\r'
        std::string unwritten;  // its newest drawing not written to the log
        std::optional<Clock::time_point> drawing_written;  // when a drawing last was
    };
    struct Slot {
        std::optional<util::Process> process;
        Stream out;
        Stream err;
        std::optional<Clock::time_point> restart_at;
        bool stopped = false;  // the supervisor signalled this run of the replica to stop
    };
    struct Outcome {
        std::string phase;
        std::string reason;
        std::string message;
    };

    // Wait in the job's queue until its turn comes (local_queue.h); false when asked to stop
    // first. A job in no queue goes at once.
    bool wait_for_turn();
    // Leave the queue on a stop request before the job's turn came: no replica started.
    void leave_queue();
    // Point the replicas at ports free now (replica_env.h set_ports).
    void take_fresh_ports();
    // Give each replica that serves metrics free ports for them and point its command line
    // at them (each local job's replicas share 127.0.0.1).
    void take_metrics_ports();
    // Start every replica and look after them until all have ended.
    void supervise();
    // What a stop request means: Suspended when kftrain suspend asked, else Failed (Stopped).
    Outcome stop_outcome() const;
    // Serve the job's status endpoint and point every replica at it; a server that cannot
    // start is noted in supervisor.log and the job runs without it.
    void start_status_server();
    // Record the newest trainerStatus a replica posted, if any came.
    void take_posted_status();
    void start_replica(size_t i);
    void pump(int timeout_ms);
    void read_stream(size_t i, Stream& stream);
    void emit_line(size_t i, const std::string& line);
    // Take one drawing of a line redrawn with carriage returns.
    void take_drawing(size_t i, Stream& stream, std::string drawing);
    // Write each drawing held back longer than the interval (a bar that stopped moving).
    void write_held_drawings();
    // Take the end of a line ('\n', or the stream's end) after its text.
    void end_line(size_t i, Stream& stream, std::string text);
    // Read one line or drawing of the lead replica for the job's progress.
    void read_progress(const std::string& line);
    // Put the progress last read from text into the state, as a progress line (before a save).
    void keep_text_progress();
    void reap();
    // Become the subreaper of the replicas' processes (supervisor_orphans.cpp).
    void adopt_orphans();
    // Return the children that are no replica: processes a replica left behind.
    std::vector<long long> orphans() const;
    // Reap the ones that ended; kill all once the job ends, or, with a replica's mark, those
    // that replica's run left (as a container's processes end with it, before a restart).
    void reap_orphans();
    void kill_orphans(const std::string& mark = "");
    // Return the environment entry that marks the processes of replica i's runs.
    std::string replica_mark(size_t i) const;
    void on_exit(size_t i, int code);
    void apply(size_t i, const ExitDecision& decision);
    // Once no replica runs, after a TrainJob's restart was decided: start them all again.
    void restart_job_when_stopped();
    void begin_stop(Outcome outcome, bool immediately);
    void advance_stop();
    void start_due_restarts();
    void check_deadline();
    bool any_running() const;
    // Keep the first failed write to the logs in the state, for status (once).
    void note_log_error();
    void save(bool force);
    void save_final();
    Outcome suspended_outcome() const;
    int finish_suspended();

    JobState m_state;
    std::vector<ReplicaLaunch> m_launch;
    std::string m_save_error;  // why the last save failed; "" when it did not
    std::vector<Slot> m_slots;
    LogWriter m_log;
    RestartRules m_rules;
    Clock::time_point m_started;
    std::optional<Outcome> m_outcome;
    std::optional<Clock::time_point> m_term_at;
    std::optional<Clock::time_point> m_kill_at;
    bool m_restarting_job = false;  // a TrainJob's restart: stopping every replica first
    bool m_dirty = false;
    Clock::time_point m_saved;
    std::unique_ptr<StatusEndpoint> m_status_server;
    progress::ProgressReader m_progress;            // of the lead replica's output
    std::optional<std::time_t> m_text_progress_at;  // when text progress not yet kept was read
};

// Run the supervisor of a job in this process (the hidden `__supervise --foreground`).
int run_supervisor(const std::string& job);

// Start the supervisor of a job as a child that this process leaves behind (`kftrain
// __supervise --foreground JOB`), so that no one waits for it and it never turns into a zombie
// of kftrain submit.
util::Status start_detached_supervisor(const std::string& job);

}  // namespace kftrain::backend::local
