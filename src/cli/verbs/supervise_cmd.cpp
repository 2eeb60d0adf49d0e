#include "cli/verbs/supervise_cmd.h"

#include <memory>
#include <string>

#include "backend/select.h"
#include "job/exit_codes.h"

namespace kftrain::cli {
namespace {

struct SuperviseOptions {
    std::string job;
    bool foreground = false;
};

}  // namespace

void setup_supervise(CLI::App& app, Context& ctx) {
    auto options = std::make_shared<SuperviseOptions>();
    auto* sub = app.add_subcommand("__supervise", "");
    sub->group("");  // hidden: kftrain submit --local starts it
    sub->add_option("job", options->job)->required();
    sub->add_flag("--foreground", options->foreground);
    sub->callback([options, &ctx] {
        auto supervised = backend::supervise_local_job(options->job, options->foreground);
        ctx.exit_code = supervised ? *supervised
                                   : report_error(ctx, supervised.error(),
                                                  supervised.error_code(k_exit_cluster));
    });
}

}  // namespace kftrain::cli
