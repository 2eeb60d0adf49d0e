#pragma once

#include <memory>

#include "trainer/loop/progress.h"
#include "trainer/loop/session.h"
#include "trainer/startup/env.h"
#include "trainer/startup/options.h"
#include "util/result.h"

namespace kftrain::trainer {

// Set up threads, data, model, optimizer and (with several ranks) the process group; rank 0's
// initial parameters are broadcast to all.
util::Result<std::unique_ptr<Session>> open_session(const TrainOptions& options, const DistEnv& env,
                                                    ProgressLog& log);

}  // namespace kftrain::trainer
