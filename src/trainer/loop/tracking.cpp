#include "trainer/loop/tracking.h"

#include <utility>

#include "trainer/mlflow/config.h"
#include "trainer/mlflow/options.h"
#include "trainer/mlflow/run_logger.h"

namespace kftrain::trainer {

std::unique_ptr<RunLogger> make_run_logger(const RunInfo& info, const EnvLookup& env) {
    if (info.rank != 0) {
        return std::make_unique<NullRunLogger>();
    }
    auto config = mlflow::read_mlflow_config(env);
    if (!config.ok()) {
        if (info.warn) {
            info.warn("MLflow tracking off: " + config.error());
        }
        return std::make_unique<NullRunLogger>();
    }
    if (!config->has_value()) {
        return std::make_unique<NullRunLogger>();
    }
    mlflow::MlflowOptions options = mlflow::read_mlflow_options(env, info.warn);
    mlflow::MlflowRunContext context{info.world_size, info.checkpoint_dir, info.warn};
    return std::make_unique<mlflow::MlflowRunLogger>(std::move(**config), std::move(context),
                                                     options);
}

}  // namespace kftrain::trainer
