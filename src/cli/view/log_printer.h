#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <ostream>
#include <thread>

#include "cli/view/live_progress.h"
#include "job/backend.h"

namespace kftrain::cli::view {

// How a LogPrinter shows log lines.
struct LogPrintOptions {
    size_t prefix_width = 8;  // the replica is padded to this: "master-0", "worker-2"
    bool raw = false;         // trainer JSON lines as they are
    bool flush_each = false;  // flush after every line (following)
    bool live = false;        // a live progress line per replica group (live_progress.h)
};

// Prints a job's log lines: a notice on err as "kftrain: master-0: text", any other line on
// out as "master-0 | text" (view/log_line.h), or, live, through LiveProgress with a thread that
// draws what changed a few times a second. Lines may come from several threads.
class LogPrinter {
  public:
    LogPrinter(std::ostream& out, std::ostream& err, LogPrintOptions options);
    ~LogPrinter();
    LogPrinter(const LogPrinter&) = delete;
    LogPrinter& operator=(const LogPrinter&) = delete;

    // Print one line.
    void print(const job::LogLine& line);
    // Show what the job's program posted (trainerStatus) on the live lines; nothing when the
    // printer is not live.
    void show_posted(const job::Progress& posted);
    // Write what is left and leave the live lines as final ones; later lines print plainly.
    void finish();

  private:
    void redraw_while_live();
    void write_out(const std::string& text);

    std::ostream& m_out;
    std::ostream& m_err;
    LogPrintOptions m_options;
    std::mutex m_mutex;  // guards the streams and the model
    std::condition_variable m_wake;
    bool m_finished = false;
    std::optional<LiveProgress> m_live;
    std::thread m_redraw;
};

// Return whether following should show live progress on out: out is a terminal that takes
// cursor movement (view/terminal.h) and neither --no-progress nor --raw was given.
bool wants_live_progress(const std::ostream& out, bool no_progress, bool raw);

}  // namespace kftrain::cli::view
