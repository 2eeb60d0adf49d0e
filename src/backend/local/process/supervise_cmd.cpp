#include "backend/local/process/supervise_cmd.h"

#include <memory>

#include "backend/local/process/supervisor.h"
#include "job/exit_codes.h"
#include "util/process_info.h"
#include "util/subprocess.h"

namespace kftrain::backend::local {
namespace {

struct SuperviseOptions {
    std::string job;
    bool foreground = false;
};

// Start the supervisor as a child that this process leaves behind, so that
// no one waits for it and it never turns into a zombie of kftrain submit.
int detach(const SuperviseOptions& options, job::Context& ctx) {
    util::SpawnOptions spawn;
    spawn.argv = {util::self_executable(), "__supervise", "--foreground", options.job};
    spawn.stdin_from = util::Redirect::inherit();
    spawn.stdout_to = util::Redirect::inherit();
    spawn.stderr_to = util::Redirect::inherit();
    auto process = util::Process::spawn(spawn);
    if (!process) {
        return job::report_error(ctx, process.error(), k_exit_cluster);
    }
    return k_exit_ok;
}

}  // namespace

void setup_supervise(CLI::App& app, job::Context& ctx) {
    auto options = std::make_shared<SuperviseOptions>();
    auto* sub = app.add_subcommand("__supervise", "");
    sub->group("");  // hidden: kftrain submit --local starts it
    sub->add_option("job", options->job)->required();
    sub->add_flag("--foreground", options->foreground);
    sub->callback([options, &ctx] {
        ctx.exit_code = options->foreground ? run_supervisor(options->job) : detach(*options, ctx);
    });
}

}  // namespace kftrain::backend::local
