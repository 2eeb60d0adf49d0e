#include "trainer/loop/session_setup.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <unistd.h>

#include "trainer/checkpoint/files.h"
#include "trainer/loop/comm_setup.h"
#include "trainer/loop/data_setup.h"
#include "trainer/startup/blas_threads.h"
#include "trainer/startup/compute_threads.h"
#include "trainer/startup/cpu_quota.h"
#include "trainer/startup/device.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;

int choose_threads(const TrainOptions& o, const DistEnv& env) {
    if (o.threads > 0) {
        return o.threads;
    }
    const int online = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    return auto_threads(read_cpu_quota(), online, env.local_procs);
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const TrainOptions& o, Net& model) {
    if (o.optimizer == "adam") {
        return std::make_unique<torch::optim::Adam>(
            model.parameters(), torch::optim::AdamOptions(o.lr).weight_decay(o.weight_decay));
    }
    return std::make_unique<torch::optim::SGD>(
        model.parameters(),
        torch::optim::SGDOptions(o.lr).momentum(o.momentum).weight_decay(o.weight_decay));
}

}  // namespace

util::Result<std::unique_ptr<Session>> open_session(const TrainOptions& options, const DistEnv& env,
                                                    ProgressLog& log) {
    auto s = std::make_unique<Session>();
    s->options = options;
    s->env = env;
    s->log = &log;
    s->threads = choose_threads(options, env);
    const auto threading = configure_threads(s->threads);
    if (auto warning = blas_threading_warning(threading, s->threads); warning && env.rank == 0) {
        log.emit(event::k_warning, {{field::k_message, *warning}});
    }
    auto device = choose_device(options.device, env.local_rank, probe_torch_cuda());
    if (!device.ok()) {
        return util::error(device.error());
    }
    s->device = torch::Device(*device);
    if (s->device.is_cuda()) {
        // Make it this thread's current device too, so CUDA libraries and NCCL set up their
        // state there rather than on device 0.
        c10::impl::getDeviceGuardImpl(s->device.type())->setDevice(s->device);
    }
    // Every rank looks, before any waits for its peers: all fail alike instead of rank 0
    // alone leaving the others to time out.
    if (!options.checkpoint_dir.empty()) {
        if (auto ok = checkpoint::check_writable_dir(options.checkpoint_dir); !ok.ok()) {
            return util::error(ok.error());
        }
    }
    torch::manual_seed(static_cast<uint64_t>(options.seed));
    if (auto ok = setup_data(*s); !ok.ok()) {
        return util::error(ok.error());
    }
    s->optimizer = make_optimizer(options, *s->model);
    s->schedule =
        LrSchedule{options.lr,      options.scale_lr, env.world_size,    options.warmup_epochs,
                   options.lr_step, options.lr_gamma, s->steps_per_epoch};
    if (env.world_size > 1) {
        if (auto ok = setup_comm(*s); !ok.ok()) {
            return util::error(ok.error());
        }
    }
    return s;
}

}  // namespace kftrain::trainer
