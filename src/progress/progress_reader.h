#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "progress/progress.h"
#include "progress/text_line.h"

namespace kftrain::progress {

// Reads a program's progress from its output as it comes, whatever way it prints it: kftrain's
// progress lines (progress_line.h) or the text programs already print (text_line.h). The one
// place that decides what a line shows: status (both backends), the live line of `--follow`,
// the measurement and the search read through it.
//
// Precedence (docs/progress.md): once the output has shown a progress line, text is no longer
// read. Text counts only where its shape is sure: a bar, a Keras line or a Trainer dict at once,
// a plain counter ("step 300/1000") once it has been seen rising. A percentage is given only
// where the total is known; an ETA only after the figures have moved a few times.
//
// Memory stays bounded whatever the output: a line is read up to text_line.h's limit, and only
// a handful of counters are remembered.
class ProgressReader {
  public:
    // Take one line of output, or one drawing of a bar redrawn with carriage returns (no '\r' or
    // '\n' in it); seen_s: when it was seen, in seconds of one steady clock, or nullopt when not
    // known (then an ETA comes only from what the program printed of its own).
    void take(std::string_view line, std::optional<double> seen_s = std::nullopt);

    // Take output as it comes: each line and drawing in it, split at '\r' and '\n'.
    void take_output(std::string_view text, std::optional<double> seen_s = std::nullopt);

    // What the output shows of the progress now: the last progress line (progress, epoch or
    // finish) where any was printed, else the text's figures put together, with their source;
    // nullopt while neither has shown any.
    const std::optional<Progress>& progress() const { return m_progress; }

    // Whether the last take changed what progress() returns.
    bool changed() const { return m_changed; }

    // The metrics the last taken line reported, by name as printed: a Trainer dict, a Keras
    // line, a bar's postfix or a plain line's "name: value" (what a search's objective is read
    // from); empty for any other line.
    const std::vector<std::pair<std::string, double>>& line_metrics() const {
        return m_line_metrics;
    }

    // What the last taken line showed as text progress, whatever the precedence (a bar's
    // drawing, a Keras line...); nullopt for a line of no such shape.
    const std::optional<TextReading>& line_reading() const { return m_line_reading; }

  private:
    // Where a counter stood when last seen: a plain counter counts once it has risen.
    struct Counter {
        bool counts_epochs = false;
        long long total = 0;
        long long done = 0;
        bool rose = false;
    };

    // Where the run stands, from the text read so far.
    struct Position {
        std::optional<long long> epoch;   // from 1
        std::optional<long long> epochs;  // when known
        std::optional<long long> step;    // within the epoch, or of the run when no epoch
        std::optional<long long> steps;
        bool epoch_done = false;  // an epoch's summary line: its steps are all done
    };

    void take_json(std::string_view line);
    void take_text(const TextReading& r, std::optional<double> seen_s);
    bool take_bar(const TextReading& r);
    bool take_plain(const TextReading& r);
    void take_trainer_log(const TextReading& r);
    void add_metrics(const std::vector<std::pair<std::string, double>>& metrics);
    void publish(const TextReading& r, std::optional<double> seen_s);
    std::optional<double> fraction() const;
    std::optional<double> eta(const TextReading& r, double done, std::optional<double> seen_s);

    std::optional<Progress> m_progress;
    bool m_changed = false;
    bool m_json = false;  // a progress line was printed: text is not read
    std::vector<std::pair<std::string, double>> m_line_metrics;
    std::optional<TextReading> m_line_reading;

    Position m_at;
    std::string m_source;
    std::vector<std::pair<std::string, double>> m_metrics;  // the newest value of each, by name
    std::vector<Counter> m_counters;                        // plain counters, at most a few
    bool m_keras = false;           // Keras step lines were seen: its epoch markers count
    bool m_epoch_bar = false;       // a bar with an epoch in its description was seen
    bool m_outer_epochs = false;    // a bar over the epochs ("Epoch: 1/3") was seen
    long long m_run_bar_total = 0;  // the largest total of a bar without an epoch
    bool m_trainer_log = false;     // the Trainer's dicts were seen
    bool m_run_end = false;         // its closing dict was seen
    std::optional<double> m_steps_per_sec;
    std::optional<double> m_elapsed_s;

    // The figures' movement: how often they moved on, and since when (for a rate of one's own).
    int m_moves = 0;
    double m_last_done = -1;
    std::optional<std::pair<double, double>> m_first_seen;  // (seen_s, fraction) of the first
};

}  // namespace kftrain::progress
