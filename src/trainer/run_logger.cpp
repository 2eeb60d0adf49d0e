#include "trainer/run_logger.h"

namespace kftrain::trainer {

std::unique_ptr<RunLogger> make_run_logger() { return std::make_unique<NullRunLogger>(); }

}  // namespace kftrain::trainer
