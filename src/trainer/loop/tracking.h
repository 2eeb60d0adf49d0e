#pragma once

// Which experiment tracker a run reports to, as the environment configures it.

#include <functional>
#include <memory>
#include <string>

#include "trainer/loop/run_logger.h"
#include "trainer/startup/env.h"

namespace kftrain::trainer {

// Hold what the trainer knows about the run that a tracker needs.
struct RunInfo {
    int rank = 0;
    int world_size = 1;
    // Where a tracker keeps its run id so a restarted rank 0 continues the run.
    std::string checkpoint_dir;
    // Print one warning line through the trainer's progress output.
    std::function<void(const std::string&)> warn;
};

// Return the logger the environment configures: MLflow on rank 0 when MLFLOW_TRACKING_URI
// is set, else the null one. Its destructor flushes within a bounded time.
std::unique_ptr<RunLogger> make_run_logger(const RunInfo& info,
                                           const EnvLookup& env = process_env());

}  // namespace kftrain::trainer
