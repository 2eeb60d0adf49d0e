#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace kftrain::trainer {

using Fields = nlohmann::ordered_json;

// Format a time as ISO-8601 UTC with milliseconds, e.g. 2026-11-22T04:10:00.123Z.
std::string iso_time_utc(std::chrono::system_clock::time_point t);

// Format one event as a JSON line: event, rank, world_size, time, then fields.
std::string format_event_json(const std::string& event, int rank, int world,
                              const std::string& time, const Fields& fields);

// Format one event as a readable line holding the same facts.
std::string format_event_text(const std::string& event, int rank, int world, const Fields& fields);

// Format held-out metrics as Katib's StdOut collector reads them, fixed-point with six
// decimals: "accuracy=0.971200 loss=0.084300". A value that is not finite is left out: the
// collector would read "nan" as an empty value.
std::string format_metric_line(double accuracy, double loss);

// Tell whether a rank prints an event: rank 0 all, others start, warning and error.
bool rank_prints(const std::string& event, int rank);

// Print progress events of one rank as JSON or text lines.
class ProgressLog {
  public:
    using Clock = std::function<std::chrono::system_clock::time_point()>;
    using Listener = std::function<void(const std::string& event, const Fields& fields)>;

    ProgressLog(std::ostream& out, std::ostream& err, bool json, int rank, int world,
                Clock clock = std::chrono::system_clock::now);

    // Print an event if this rank prints it (errors and warnings in text go to err), then
    // pass it to the listener.
    void emit(const std::string& event, const Fields& fields);
    // Print a metric line (format_metric_line) after the time, "2026-11-23T02:17:00.123Z
    // accuracy=0.971200 loss=0.084300", to out and flush it, on rank 0 only, in both
    // formats: Katib's collector and kftrain's local search read it as it comes.
    void print_metrics(double accuracy, double loss);
    // Pass every event emitted from now on to listener too (set it before training starts).
    void set_listener(Listener listener) { m_listener = std::move(listener); }

  private:
    void print(const std::string& event, const Fields& fields);

    std::ostream& m_out;
    std::ostream& m_err;
    bool m_json;
    int m_rank;
    int m_world;
    Clock m_clock;
    Listener m_listener;
    std::mutex m_mutex;
};

}  // namespace kftrain::trainer
