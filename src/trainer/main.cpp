// kftrain-trainer: parse the command line and the environment, then train (no torch here).
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "trainer/comm/nccl_group.h"
#include "trainer/data/datasets.h"
#include "trainer/loop/run.h"
#include "trainer/process/local_launcher.h"
#include "trainer/startup/device.h"
#include "trainer/startup/env.h"
#include "trainer/startup/malloc_tuning.h"
#include "trainer/startup/options.h"

namespace {

constexpr int k_exit_usage = 2;

int fail(const std::string& message, int code) {
    std::cerr << "kftrain-trainer: error: " << message << std::endl;
    return code;
}

// End the process once training or the launcher is done and everything of its own has been
// torn down: flush the streams and skip the static destructors, where libtorch unregisters
// every operator (about 65 ms of CPU, a hundredth of a short job; a broken process group can
// also hang in its destructor).
[[noreturn]] void exit_now(int code) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace kftrain::trainer;
    keep_large_buffers();  // before any allocation that a step would repeat
    const std::vector<std::string> args(argv + 1, argv + argc);
    auto invocation = parse_command_line(args);
    if (!invocation.ok()) {
        return fail(invocation.error(), k_exit_usage);
    }
    switch (invocation->command) {
        case Command::help:
        case Command::version:
            std::cout << invocation->text << std::endl;
            return 0;
        case Command::make_dataset: {
            const auto& o = invocation->make_dataset;
            try {
                auto made = data::make_dataset(o);
                return made.ok() ? 0 : fail(made.error(), 1);
            } catch (const std::bad_alloc&) {
                return fail(fmt::format("make-dataset: not enough memory for --samples {} of {} "
                                        "images; make fewer",
                                        o.samples, o.kind),
                            1);
            }
        }
        case Command::train:
            break;
    }
    auto env = parse_dist_env(process_env(), probe_torch_cuda);
    if (!env.ok()) {
        return fail(env.error(), k_exit_usage);
    }
    // Refuse --device cuda where libtorch has no CUDA device before anything starts, as for
    // --backend nccl below: exit 2 and one line, not a failed start on every rank.
    if (invocation->train.device == "cuda") {
        if (auto usable = choose_device("cuda", env->local_rank, probe_torch_cuda());
            !usable.ok()) {
            return fail(usable.error(), k_exit_usage);
        }
    }
    // Refuse --backend nccl without NCCL or a GPU before anything starts, even with one rank
    // (where no collective runs): the job was meant for a GPU and is not getting one.
    if (invocation->train.backend == "nccl") {
        if (auto usable = comm::choose_backend("nccl", true, env->local_procs, comm::probe_cuda);
            !usable.ok()) {
            return fail(usable.error(), k_exit_usage);
        }
    }
    if (env->spawn_local > 1) {
        exit_now(process::run_local_processes(*env, args));
    }
    exit_now(run_trainer(invocation->train, *env, std::cout, std::cerr));
}
