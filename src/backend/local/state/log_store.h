#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "job/backend.h"
#include "util/fd/unique_fd.h"

namespace kftrain::backend::local {

// Append replicas' lines to a job's logs: the combined log in arrival order
// and each replica's own file (see state_dir.h).
class LogWriter {
  public:
    // Open the logs of a job (its logs directory must exist).
    explicit LogWriter(const std::string& job);
    LogWriter(const LogWriter&) = delete;
    LogWriter& operator=(const LogWriter&) = delete;

    // Append one line (without its newline) a replica printed, stamped with the time now.
    void append(const std::string& replica, const std::string& text);
    // The first write that failed ("cannot write .../logs/all.log: No space left on device"),
    // or "": the replicas go on, but their logs are incomplete from then on.
    const std::string& error() const { return m_error; }

  private:
    void append_to(const util::UniqueFd& log, const std::string& path, const std::string& text);

    std::string m_dir;
    std::string m_all_path;
    util::UniqueFd m_all;
    std::string m_error;
    std::map<std::string, util::UniqueFd> m_files;
};

// One line of the combined log.
struct LogRecord {
    std::string time;  // RFC 3339 UTC
    std::string replica;
    std::string text;
};

// Reads a job's combined log (combined_log_path) from where it stopped last: `logs -f` and a
// measurement (estimate --measure) follow a running job with it.
class LogCursor {
  public:
    explicit LogCursor(std::string path) : m_path(std::move(path)) {}
    LogCursor(const LogCursor&) = delete;
    LogCursor& operator=(const LogCursor&) = delete;

    // Return the complete records written since the last call, at most k_max_read bytes of
    // them: a log that grows faster than it is read is caught up over later calls, never held
    // in memory whole.
    std::vector<LogRecord> next();

    // Return whether the last next() read all there was (else call again for the rest).
    bool caught_up() const { return m_caught_up; }

    static constexpr size_t k_max_read = size_t{8} << 20;

  private:
    std::string m_path;
    util::UniqueFd m_fd;
    std::string m_partial;
    bool m_caught_up = false;
};

// Parse a line of the combined log; nullopt when it is not "time\treplica\ttext".
std::optional<LogRecord> parse_log_record(const std::string& line);

// Return whether a replica (by its log name, e.g. worker-1) is selected by a --replica
// value, as on the cluster: "" (all), a type in any case ("worker", "Master") or a name.
bool replica_matches(const std::string& filter, const std::string& replica);

// Return whether a record passes the replica and since filters (since_time 0: none).
bool record_selected(const LogRecord& record, const job::LogOptions& options,
                     std::time_t since_time);

// When one attempt of a replica ran: RFC 3339 UTC times, both included.
struct AttemptWindow {
    std::string started;
    std::string finished;
};

// Return whether a record was printed by its replica's attempt in windows (by replica name).
bool in_attempt(const LogRecord& record, const std::map<std::string, AttemptWindow>& windows);

// Keep the last n records of each replica, in their order.
std::vector<LogRecord> tail_per_replica(const std::vector<LogRecord>& records, int n);

// Return the line a sink receives: the text, after the time when timestamps are asked for.
job::LogLine to_log_line(const LogRecord& record, bool timestamps);

}  // namespace kftrain::backend::local
