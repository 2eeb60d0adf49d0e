#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"
#include "util/subprocess.h"

namespace kftrain::staging {

// How a copy ended.
struct PipeResult {
    util::ExitStatus from;
    util::ExitStatus to;   // the receiving process (none when kftrain itself consumed)
    std::string from_err;  // the last 64 KiB of each one's stderr
    std::string to_err;
    std::string consume_error;  // why kftrain's own consumer stopped, when it did
    int consume_code = 0;       // and the exit code it asked for
    uint64_t bytes = 0;         // what passed from one to the other
    bool cancelled = false;     // stopped because cancelled() said so
    bool stalled = false;       // stopped because no byte moved for the stall limit
};

// Where the bytes of a copy go: a process's stdin, or kftrain's own consumer (which may stop the
// copy with an error); with a check asked every 100 ms (true: the copy is cancelled) and a limit
// on how long no byte may move.
struct PipeEnds {
    std::vector<std::string> from;
    std::vector<std::string> to;  // empty: consume gets the bytes
    std::function<util::Status(const char*, size_t)> consume;
    std::function<void(uint64_t)> on_bytes;  // the running total as data passes
    std::function<bool()> cancelled;
    std::optional<std::chrono::milliseconds> stall_limit;
};

// Run `from | to` (or `from` into consume) with kftrain in the middle, so it can count the bytes.
// When the receiving end stops, `from` is killed; on cancel or a stall both are. Each runs in a
// group of its own, so kftrain's own end takes them along.
util::Result<PipeResult> run_pipe(const PipeEnds& ends);

}  // namespace kftrain::staging
