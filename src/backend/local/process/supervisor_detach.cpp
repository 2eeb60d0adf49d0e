#include "backend/local/process/supervisor.h"
#include "job/exit_codes.h"
#include "util/process_info.h"
#include "util/subprocess.h"

namespace kftrain::backend::local {

util::Status start_detached_supervisor(const std::string& job) {
    util::SpawnOptions spawn;
    spawn.argv = {util::self_executable(), "__supervise", "--foreground", job};
    spawn.stdin_from = util::Redirect::inherit();
    spawn.stdout_to = util::Redirect::inherit();
    spawn.stderr_to = util::Redirect::inherit();
    auto process = util::Process::spawn(spawn);
    if (!process) {
        return util::error(process.error(), k_exit_cluster);
    }
    return util::ok_status();
}

}  // namespace kftrain::backend::local
