#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "job/backend.h"
#include "job/status.h"
#include "progress/progress_reader.h"

namespace kftrain::cli::view {

// What a terminal shows while a job is followed, as a pure model: one live line per replica
// group (master, worker, node: the replica name without its index) that has printed trainer
// progress, kept at the bottom and updated in place, while every other log line scrolls above
// it. It returns the text to write (ANSI cursor up, carriage return, erase); the caller owns the
// stream (view/log_printer.h).
class LiveProgress {
  public:
    using Clock = std::chrono::steady_clock;

    // The least time between two writes: at most five a second.
    static constexpr std::chrono::milliseconds k_redraw_interval{200};

    // Make an empty model; log lines get their replica padded to prefix_width, as plain ones.
    explicit LiveProgress(size_t prefix_width);

    // Take one replica's log line (not a notice): a step or finish event of the trainer
    // updates its group's line; anything else is queued to scroll above the block (an epoch
    // summary both scrolls and updates the line; a start line of a group already shown marks a
    // restart and clears its figures).
    void take(const job::LogLine& line);

    // Take the trainerStatus the job's program last posted: it gets a line of its own, "status",
    // each post replacing the one before.
    void take_posted(const job::Progress& posted);

    // Return the text that brings the terminal up to date, each live line cut to width
    // columns; empty when nothing changed, or when the last write was less than
    // k_redraw_interval before now (the change is kept for a later call).
    std::string render(size_t width, Clock::time_point now);

    // Return the text that erases the block, so that other output (a notice on stderr) can be
    // written where it stood; the next render draws it again below that output.
    std::string clear();

    // Return the text that writes what is queued and leaves the block as final lines, whatever
    // the time; what is taken afterwards is written below it, as if nothing had been shown.
    std::string finish(size_t width);

    // Return the live lines as they would be drawn now (uncut).
    std::vector<std::string> block() const;

  private:
    // What one replica group's line shows: the figures merged from its events.
    struct Group {
        std::string key;      // master, worker, node
        std::string replica;  // the replica that reported last: master-0
        job::Progress figures;
        bool finished = false;
        int restarts = 0;
    };

    // Read a line that is no progress line for the text progress it shows (a tqdm bar, Keras,
    // the Trainer's logs, plain counters); return whether it is a drawing the live line shows.
    bool take_text(const job::LogLine& line);
    Group& group_of(const std::string& replica);
    Group* find_group(const std::string& replica);
    std::string format_group(const Group& group) const;
    std::vector<std::string> cut_block(size_t width) const;
    // Return the text that writes the queued log lines and these live lines; empty when
    // nothing changed.
    std::string draw(std::vector<std::string> lines);

    size_t m_prefix_width;
    std::vector<Group> m_groups;  // in the order they first reported
    std::vector<std::pair<std::string, progress::ProgressReader>> m_readers;  // by group
    std::vector<std::string> m_scroll;  // log lines not written yet
    std::vector<std::string> m_drawn;   // the live lines on the terminal now, as cut
    std::optional<Clock::time_point> m_last_write;
};

// Return the replica group a replica belongs to: its name without a trailing "-<index>"
// (master-0: master, worker-12: worker, dataset-initializer: itself).
std::string replica_group(const std::string& replica);

// Cut text to at most width columns (a UTF-8 character counts as one), never inside a
// character; control characters become spaces.
std::string cut_to_width(const std::string& text, size_t width);

}  // namespace kftrain::cli::view
