#pragma once

namespace kftrain {

// Exit codes of kftrain, the same for every verb (docs/cli.md, "Exit codes").
enum ExitCode : int {
    k_exit_ok = 0,          // success; for wait: the job Succeeded
    k_exit_job_failed = 1,  // the job Failed
    k_exit_bad_input = 2,   // usage or validation: nothing was submitted
    k_exit_not_found = 3,   // the job does not exist
    k_exit_cluster = 4,     // cluster or kubectl error
    k_exit_timeout = 5,     // timed out waiting
    k_exit_interrupted = 130,
};

}  // namespace kftrain
