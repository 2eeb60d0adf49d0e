#pragma once

#include <string>

#include "cli/context.h"
#include "job/backend.h"

namespace kftrain::cli::view {
class LogPrinter;
}

namespace kftrain::cli {

// Stream the job's logs into printer (backend.logs); while they are followed on live lines,
// also show what the job's program posts as trainerStatus (any local job, a TrainJob on a
// cluster), polled every 2 s. The one way `submit --follow` and `logs -f` follow.
util::Status stream_logs(job::Backend& backend, const std::string& job,
                         const job::LogOptions& options, view::LogPrinter& printer, bool live);

// Print the logs through a backend, lines prefixed with their replica, notices
// on stderr; following on a terminal (unless no_progress or raw), one live progress line per
// replica group. Return 0, or the code of the backend's error after printing it.
int print_logs(job::Backend& backend, const std::string& job, const job::LogOptions& options,
               bool raw, bool no_progress, Context& ctx);

// How submit --follow follows.
struct FollowFlags {
    bool stop_on_interrupt = false;  // Ctrl-C stops the job too
    bool no_progress = false;        // on a terminal, too: plain lines, no live progress lines
};

// Follow a submitted job as `kftrain logs -f` does (lines prefixed with their replica,
// progress readable; on a terminal one live progress line per replica group) until it ends,
// then print its state on err; return 0 when it Succeeded, 1 when it Failed. Ctrl-C stops
// following (130) and, with stop_on_interrupt, stops the job too.
int follow_job(job::Backend& backend, const std::string& job, int replicas,
               const FollowFlags& flags, Context& ctx);

}  // namespace kftrain::cli
