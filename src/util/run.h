#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"
#include "util/subprocess.h"

namespace kftrain::util {

// Options for run(): a process with its stdin given, its output collected. The process runs in
// a group of its own (SpawnOptions::own_group), and every ending below kills the whole group,
// so nothing it started is left behind holding its output open.
struct RunOptions {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;
    std::string cwd;                                   // empty: the caller's
    std::string input;                                 // written to stdin, then closed
    std::optional<std::chrono::milliseconds> timeout;  // then SIGKILL
    std::function<bool()> cancelled;                   // asked every 100 ms; true: SIGKILL
    // With cancelled: how long the group has to stop after a SIGINT before it is killed
    // (0: killed at once). A kftrain child stops the local jobs it started on SIGINT.
    std::chrono::milliseconds cancel_grace{0};
    size_t max_out = size_t{256} << 20;  // more stdout than this: SIGKILL
    size_t max_err = size_t{1} << 20;    // stderr kept; the rest is counted, not kept
};

// What run() collected.
struct RunResult {
    ExitStatus status;
    std::string out;
    std::string err;
    size_t err_dropped = 0;  // bytes of stderr beyond max_err, not kept
    bool timed_out = false;
    bool cancelled = false;     // killed because cancel turned true
    bool out_overflow = false;  // killed because stdout passed max_out
};

// Called with each complete line (without its newline) as it arrives.
using LineCallback = std::function<void(const std::string& line)>;

// Run a process to completion, reading stdout and stderr separately.
Result<RunResult> run(const RunOptions& options);

// Run a process, calling on_out/on_err for each line as it arrives; the lines
// are not kept in the result. A callback may be empty to collect that stream.
Result<RunResult> run_streaming(const RunOptions& options, const LineCallback& on_out,
                                const LineCallback& on_err);

}  // namespace kftrain::util
