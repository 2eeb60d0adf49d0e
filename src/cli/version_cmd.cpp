#include "cli/version_cmd.h"

#include "cli/exit_codes.h"

namespace kftrain::cli {

void setup_version(CLI::App& app, Context& ctx) {
    auto* sub = app.add_subcommand("version", "Print the version of kftrain");
    sub->callback([&ctx] {
        ctx.out << "kftrain " << KFTRAIN_VERSION << "\n"
                << "PyTorchJob apiVersion kubeflow.org/v1 (Training Operator v1.3 to v1.9)\n"
                << "TrainJob apiVersion trainer.kubeflow.org/v1alpha1 (Kubeflow Trainer v2.2 to "
                   "v2.3)\n";
        ctx.exit_code = k_exit_ok;
    });
}

}  // namespace kftrain::cli
