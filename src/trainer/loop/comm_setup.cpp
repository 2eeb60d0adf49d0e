#include "trainer/loop/comm_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "trainer/comm/backend.h"
#include "trainer/comm/buckets.h"
#include "trainer/comm/gradient_reducer.h"
#include "trainer/comm/nccl_group.h"
#include "trainer/loop/session.h"
#include "trainer/process/signals.h"
#include "trainer/process/watchdog.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;

util::Result<std::unique_ptr<comm::Comm>> connect_peers(Session& s) {
    const auto timeout = std::chrono::seconds(s.options.timeout_s);
    // The store's and Gloo's rendezvous timeouts add up: bound the whole connection.
    // A SIGTERM while the peers are missing ends the wait at once: nothing to checkpoint yet.
    process::Watchdog watchdog(
        timeout + std::chrono::seconds(1),
        [&s] {
            s.log->emit(event::k_error,
                        {{field::k_message,
                          fmt::format("cannot connect to {}:{} as rank {} of {} within {}s: peers "
                                      "missing",
                                      s.env.master_addr, s.env.master_port, s.rank(), s.world(),
                                      s.options.timeout_s)}});
            std::_Exit(1);
        },
        [&s] {
            s.log->emit(event::k_warning,
                        {{field::k_message,
                          fmt::format("stopped by a signal while connecting to {}:{} as rank {} "
                                      "of {}",
                                      s.env.master_addr, s.env.master_port, s.rank(), s.world())}});
            std::_Exit(process::k_exit_terminated);
        });
    return comm::Comm::connect(s.env, timeout);
}

// Resolve --grad-compression on the connected group; warn (rank 0) when the backend cannot
// carry the half type and the reducer only rounds to it.
comm::GradCompression choose_compression(Session& s) {
    comm::GradCompression c;
    const auto& flag = s.options.grad_compression;
    if (flag == "none") {
        return c;
    }
    c.type = flag == "bf16" ? torch::kBFloat16 : torch::kHalf;
    c.carried = s.comm->carries(c.type);
    if (c.carried || s.rank() != 0) {
        return c;
    }
    const std::string message =
        s.comm->backend() == comm::Backend::shm
            ? fmt::format(
                  "--grad-compression {}: the ranks share this host's memory, with no "
                  "network bytes to save; gradients are rounded to {} and summed as fp32",
                  flag, flag)
            : fmt::format(
                  "--grad-compression {}: {} cannot all-reduce {} in this libtorch; "
                  "gradients are rounded to {} but sent as fp32, so no bandwidth is "
                  "saved{}",
                  flag, comm::backend_name(s.comm->backend()), c10::toString(c.type), flag,
                  flag == "bf16" ? " (fp16 halves it)" : "");
    s.log->emit(event::k_warning, {{field::k_message, message}});
    return c;
}

// --bucket-mb auto's probe: a small all-reduce for the fixed cost, a 4 MiB one for the cost
// per byte, each the fastest of a few after one untimed (which also sets up the buffers).
constexpr std::size_t k_probe_small_bytes = 4 * 1024;
constexpr std::size_t k_probe_large_bytes = 4 * 1024 * 1024;
constexpr int k_probe_repeats = 5;

double time_allreduce(Session& s, std::size_t bytes) {
    auto flat = torch::zeros({static_cast<int64_t>(bytes / sizeof(float))},
                             torch::TensorOptions(torch::kFloat32).device(s.device));
    s.comm->allreduce_async(flat)->wait();
    double fastest = std::numeric_limits<double>::infinity();
    for (int i = 0; i < k_probe_repeats; ++i) {
        const auto t0 = s.synced_now();
        s.comm->allreduce_async(flat)->wait();
        fastest = std::min(fastest, s.seconds_since(t0));
    }
    return fastest;
}

// Set the gradient buckets' capacity: --bucket-mb, or from the links' measured cost, the
// mean over ranks so that every rank lays out the same buckets.
void choose_bucket_bytes(Session& s) {
    constexpr double k_mib = 1024.0 * 1024.0;
    if (s.options.bucket_mb > 0) {
        s.bucket_bytes = static_cast<std::size_t>(std::llround(s.options.bucket_mb * k_mib));
        return;
    }
    const double small = time_allreduce(s, k_probe_small_bytes);
    const double large = time_allreduce(s, k_probe_large_bytes);
    const auto sums = s.sum_over_ranks({small, large});
    s.link = comm::fit_link_cost(k_probe_small_bytes, sums[0] / s.world(), k_probe_large_bytes,
                                 sums[1] / s.world());
    s.bucket_bytes = comm::bucket_bytes_for(*s.link);
}

// The settings every rank must share, as name and value: the ranks' collectives pair up only
// where they take the same steps (a rank with another --model aborted in Gloo, one with other
// --samples hung to the timeout), and a rank with another --lr or --seed would train apart
// from the others without a word.
std::vector<std::pair<std::string, std::string>> shared_settings(const Session& s) {
    const auto& o = s.options;
    int64_t parameters = 0;
    for (const auto& p : s.model->parameters()) {
        parameters += p.numel();
    }
    const auto number = [](double v) { return fmt::format("{}", v); };
    return {{"--model", o.model},
            {"parameters", std::to_string(parameters)},
            {"--dataset", o.dataset},
            {"training samples", std::to_string(s.train.size())},
            {"test samples", std::to_string(s.test.size())},
            {"--batch-size", std::to_string(o.batch_size)},
            {"steps per epoch", std::to_string(s.steps_per_epoch)},
            {"--epochs", std::to_string(o.epochs)},
            {"--optimizer", o.optimizer},
            {"--lr", number(o.lr)},
            {"--momentum", number(o.momentum)},
            {"--weight-decay", number(o.weight_decay)},
            {"--scale-lr", o.scale_lr ? "true" : "false"},
            {"--warmup-epochs", std::to_string(o.warmup_epochs)},
            {"--lr-step", std::to_string(o.lr_step)},
            {"--lr-gamma", number(o.lr_gamma)},
            {"--seed", std::to_string(o.seed)},
            {"--log-every", std::to_string(o.log_every)},
            {"--checkpoint-every", std::to_string(o.checkpoint_every)},
            {"--nan-patience", std::to_string(o.nan_patience)},
            {"--backend", o.backend},
            {"--grad-compression", o.grad_compression},
            {"--bucket-mb", o.bucket_mb > 0 ? number(o.bucket_mb) : "auto"},
            {"--benchmark", std::to_string(o.benchmark_steps)}};
}

// Check that this rank runs rank 0's settings, before any collective depends on them: each
// rank that differs names the first setting and both values, and every rank fails.
util::Status check_same_settings(Session& s) {
    const auto mine = shared_settings(s);
    std::string text;
    for (const auto& [name, value] : mine) {
        text += name + '\t' + value + '\n';
    }
    const std::string rank0 = s.comm->broadcast_bytes(text);
    std::string differs;
    if (rank0 != text) {
        std::istringstream lines(rank0);
        std::string line;
        for (const auto& [name, value] : mine) {
            std::getline(lines, line);
            const auto tab = line.find('\t');
            const std::string theirs = tab == std::string::npos ? line : line.substr(tab + 1);
            if (theirs != value) {
                differs = fmt::format("{} {} here, {} on rank 0", name, value, theirs);
                break;
            }
        }
    }
    const double others = s.sum_over_ranks({differs.empty() ? 0.0 : 1.0})[0];
    if (others == 0) {
        return util::ok_status();
    }
    if (!differs.empty()) {
        return util::error(fmt::format(
            "rank {} was started with other settings than rank 0: {}; every rank of a job must "
            "run the same command",
            s.rank(), differs));
    }
    return util::error(
        fmt::format("{} of the {} ranks were started with other settings than rank 0 (their "
                    "errors say which); every rank of a job must run the same command",
                    static_cast<int>(others), s.world()));
}

}  // namespace

util::Status setup_comm(Session& s) {
    auto connected = connect_peers(s);
    if (!connected.ok()) {
        return util::error(connected.error());
    }
    s.comm = std::move(*connected);
    if (auto same = check_same_settings(s); !same.ok()) {
        return same;
    }
    // auto: NCCL when the model is on a CUDA device and NCCL is built in, else shared memory
    // where every rank is on this host, else Gloo.
    auto backend = comm::choose_backend(s.options.backend, s.device.is_cuda(), s.env.local_procs,
                                        comm::probe_cuda);
    if (!backend.ok()) {
        return util::error(backend.error());
    }
    if (*backend == comm::Backend::nccl) {
        if (auto ok = s.comm->use_nccl(s.env.local_rank); !ok.ok()) {  // its own deadline
            return util::error(ok.error());
        }
    } else if (s.options.backend == "auto" && !s.device.is_cuda()) {
        if (auto shared = s.comm->use_shared_memory(); !shared.ok()) {
            s.log->emit(event::k_warning,
                        {{field::k_message,
                          shared.error() + "; gradients are all-reduced over Gloo's TCP"}});
        }
    }
    auto params = s.model->parameters();
    s.comm->broadcast(params);
    auto buffers = s.model->buffers();
    s.comm->broadcast(buffers);
    const auto compression = choose_compression(s);
    choose_bucket_bytes(s);
    s.reducer = std::make_unique<comm::GradientReducer>(
        *s.comm, std::move(params), std::min(comm::k_first_bucket_bytes, s.bucket_bytes),
        s.bucket_bytes, compression);
    return util::ok_status();
}

}  // namespace kftrain::trainer
