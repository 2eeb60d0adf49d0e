#include "trainer/session.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <numeric>
#include <sstream>

#include "trainer/blas_threads.h"
#include "trainer/checkpoint/io.h"
#include "trainer/comm/buckets.h"
#include "trainer/comm/nccl_group.h"
#include "trainer/compute_threads.h"
#include "trainer/cpu_quota.h"
#include "trainer/data/datasets.h"
#include "trainer/data/sampler.h"
#include "trainer/device.h"
#include "trainer/process/process_age.h"
#include "trainer/process/watchdog.h"
#include "trainer/profile.h"
#include "trainer/run.h"
#include "trainer/step_sync.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;
using SteadyClock = std::chrono::steady_clock;

int choose_threads(const TrainOptions& o, const DistEnv& env) {
    if (o.threads > 0) {
        return o.threads;
    }
    const int online = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    return auto_threads(read_cpu_quota(), online, env.local_procs);
}

TensorSet to_tensors(const data::ImageSet& set) {
    auto images = torch::from_blob(const_cast<uint8_t*>(set.pixels.data()),
                                   {set.count, set.channels, set.rows, set.cols}, torch::kUInt8);
    auto labels =
        torch::from_blob(const_cast<uint8_t*>(set.labels.data()), {set.count}, torch::kUInt8);
    return TensorSet{images.clone(), labels.to(torch::kInt64)};
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

util::Status setup_data(Session& s) {
    auto splits = data::load_datasets(s.options);
    if (!splits.ok()) {
        return util::Error{splits.error()};
    }
    const auto& train = splits->train;
    s.train = to_tensors(train);
    s.test = to_tensors(splits->test);
    const int c = train.channels;
    s.mean = torch::tensor(std::vector<float>(train.mean.begin(), train.mean.begin() + c))
                 .view({1, c, 1, 1})
                 .to(s.device);
    s.stddev = torch::tensor(std::vector<float>(train.stddev.begin(), train.stddev.begin() + c))
                   .view({1, c, 1, 1})
                   .to(s.device);
    s.shard_size = data::sampler_num_samples(s.train.size(), s.world(), false);
    const int64_t b = s.options.batch_size;
    s.steps_per_epoch = (s.shard_size + b - 1) / b;
    auto model = make_model(s.options.model, c, train.rows, train.cols);
    if (!model.ok()) {
        return util::Error{model.error()};
    }
    s.model = *model;
    // Initialised on the host from the seed, so every device starts from the same weights.
    s.model->to(s.device);
    const bool channels_last =
        choose_channels_last(s.options.memory_format, s.model->convolutional(), s.device.is_cuda());
    s.model->set_memory_format(channels_last ? torch::MemoryFormat::ChannelsLast
                                             : torch::MemoryFormat::Contiguous);
    return util::Unit{};
}

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
            std::_Exit(k_exit_terminated);
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

// Read the clock once the kernels queued on the session's CUDA device are done, so that a
// time measures the work and not only its launch (CUDA runs asynchronously; the CPU does not).
SteadyClock::time_point synced_now(const Session& s) {
    if (s.device.is_cuda()) {
        torch::cuda::synchronize(s.device.index());
    }
    return SteadyClock::now();
}

double seconds_since(const Session& s, SteadyClock::time_point t) {
    return std::chrono::duration<double>(synced_now(s) - t).count();
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
        const auto t0 = synced_now(s);
        s.comm->allreduce_async(flat)->wait();
        fastest = std::min(fastest, seconds_since(s, t0));
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
        return util::Unit{};
    }
    if (!differs.empty()) {
        return util::Error{fmt::format(
            "rank {} was started with other settings than rank 0: {}; every rank of a job must "
            "run the same command",
            s.rank(), differs)};
    }
    return util::Error{
        fmt::format("{} of the {} ranks were started with other settings than rank 0 (their "
                    "errors say which); every rank of a job must run the same command",
                    static_cast<int>(others), s.world())};
}

util::Status setup_comm(Session& s) {
    auto connected = connect_peers(s);
    if (!connected.ok()) {
        return util::Error{connected.error()};
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
        return util::Error{backend.error()};
    }
    if (*backend == comm::Backend::nccl) {
        if (auto ok = s.comm->use_nccl(s.env.local_rank); !ok.ok()) {  // its own deadline
            return util::Error{ok.error()};
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
    return util::Unit{};
}

// The batches of the first epoch, in training order and over again: a timed step takes
// its batch from the data set as training does, so that assembling it is counted too.
class BatchCycle {
  public:
    explicit BatchCycle(const Session& s)
        : m_order(s.epoch_indices(0)), m_batch(static_cast<std::size_t>(s.options.batch_size)) {}

    std::vector<int64_t> next() {
        if (m_next >= m_order.size()) {
            m_next = 0;
        }
        const auto first = m_order.begin() + static_cast<std::ptrdiff_t>(m_next);
        const auto end = m_order.begin() +
                         static_cast<std::ptrdiff_t>(std::min(m_order.size(), m_next + m_batch));
        m_next += m_batch;
        m_taken += 1;
        return {first, end};
    }
    // Return how many batches next() has given: the step count, for the learning rate.
    int64_t taken() const { return m_taken; }

  private:
    std::vector<int64_t> m_order;
    std::size_t m_batch;
    std::size_t m_next = 0;
    int64_t m_taken = 0;
};

// Run one training step, timed, on the next batch; add its phases to t and return its
// seconds.
double timed_step(Session& s, BatchCycle& batches, StepMetrics& metrics, StepPhases& t) {
    const double before = t.total();
    const auto indices = batches.next();
    s.train_step(indices, lr_at(s.schedule, batches.taken() - 1), metrics, &t);
    return t.total() - before;
}

// Return whether the steps recorded reach a log point, where training reads them.
bool at_log_point(const Session& s, const StepMetrics& metrics) {
    return static_cast<int64_t>(metrics.steps()) >= s.options.log_every;
}

// Time one step of compute alone, which ranks run in different numbers: its metrics are
// kept as training keeps them between log points, then dropped rather than summed.
double compute_step(Session& s, BatchCycle& batches, StepMetrics& metrics, StepPhases& t) {
    const double seconds = timed_step(s, batches, metrics, t);
    if (at_log_point(s, metrics)) {
        metrics.discard();
    }
    return seconds;
}

// Steps run before any is measured: caches, allocator and thread pools settle.
constexpr std::size_t k_min_warmup_steps = 3;
constexpr std::size_t k_max_warmup_steps = 30;
// Seconds of steps every measurement runs (at least --benchmark N steps), in blocks of
// about k_block_s whose median mean is the figure (typical_step_s): a spell of the machine
// shorter than half the measurement does not move it.
constexpr double k_min_measured_s = 1.5;
constexpr double k_block_s = 0.2;

// Run steps without counting them until their time settles; return each one's seconds.
std::vector<double> warm_up(Session& s, BatchCycle& batches, StepMetrics& metrics) {
    std::vector<double> seconds;
    StepPhases discarded;
    while (!warmed_up(seconds, k_min_warmup_steps, k_max_warmup_steps)) {
        seconds.push_back(compute_step(s, batches, metrics, discarded));
    }
    return seconds;
}

// Test samples an evaluation is timed on: enough batches of 256 for a steady figure.
constexpr int64_t k_eval_timed_samples = 1024;

// Time evaluation as every epoch's end runs it: the first time (cold: its larger batches
// allocate anew) and again, warm, per test sample.
void measure_eval(Session& s, Profile& p) {
    const int64_t n = std::min<int64_t>(s.test.size(), k_eval_timed_samples);
    if (n <= 0) {
        return;
    }
    std::vector<int64_t> indices(static_cast<std::size_t>(n));
    std::iota(indices.begin(), indices.end(), int64_t{0});
    auto t0 = synced_now(s);
    s.eval_sums(indices);
    const double cold = seconds_since(s, t0);
    auto t1 = synced_now(s);
    s.eval_sums(indices);
    const double warm = seconds_since(s, t1);
    p.eval_s_per_sample = warm / static_cast<double>(n);
    p.eval_warmup_s = std::max(0.0, cold - warm);
}

// Time a checkpoint as rank 0 writes it, in --checkpoint-dir (the job's volume) or else the
// temporary directory: the faster of two writes (the first also sets up serialization).
void measure_checkpoint(Session& s, Profile& p) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path dir = s.options.checkpoint_dir.empty() ? fs::temp_directory_path(ec)
                                                          : fs::path(s.options.checkpoint_dir);
    const auto path = dir / fmt::format(".kftrain-profile-{}.ckpt", ::getpid());
    double fastest = 0;
    for (int i = 0; i < 2; ++i) {
        const auto t0 = SteadyClock::now();
        if (!checkpoint::save_checkpoint(path.string(), *s.model, *s.optimizer, {}).ok()) {
            return;  // unmeasured (0): the estimate assumes a disk speed and says so
        }
        const double took = std::chrono::duration<double>(SteadyClock::now() - t0).count();
        fastest = i == 0 ? took : std::min(fastest, took);
    }
    p.checkpoint_s = fastest;
    p.checkpoint_bytes = static_cast<int64_t>(fs::file_size(path, ec));
    fs::remove(path, ec);
}

Profile base_profile(Session& s) {
    Profile p;
    p.model = s.options.model;
    p.dataset = s.options.dataset;
    for (const auto& param : s.model->parameters()) {
        p.parameters += param.numel();
        p.gradient_bytes += param.numel() * static_cast<int64_t>(param.element_size());
    }
    p.batch_size = s.options.batch_size;
    p.threads = s.threads;
    p.world_size = s.world();
    p.steps = s.options.benchmark_steps;
    p.grad_compression = s.options.grad_compression;
    if (s.comm) {
        p.backend = comm::backend_name(s.comm->backend());
    }
    p.allreduce_bytes_per_step = s.reducer ? s.reducer->wire_bytes() : 0;
    if (s.reducer) {
        p.bucket_bytes = static_cast<int64_t>(s.bucket_bytes);
        p.buckets = static_cast<int64_t>(s.reducer->bucket_count());
    }
    if (s.link) {
        p.link_latency_s = s.link->latency_s;
        if (s.link->s_per_byte > 0) {
            p.link_bytes_per_s = 1.0 / s.link->s_per_byte;
        }
    }
    return p;
}

// Measure the all-reduce alone, then whole steps with it overlapping backward. Every rank
// runs the same number of collectives: the requested steps, after a fixed warm-up.
void measure_distributed(Session& s, BatchCycle& batches, Profile& p) {
    // At least --benchmark steps and about k_min_measured_s of them, the same count on every
    // rank (each collective needs all of them): from the mean of the ranks' compute times.
    const double mean_compute_s = s.sum_over_ranks({p.compute_s_per_step})[0] / s.world();
    const int64_t n =
        std::max(static_cast<int64_t>(std::ceil(k_min_measured_s / std::max(mean_compute_s, 1e-6))),
                 s.options.benchmark_steps);
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(n));
    s.comm->barrier();
    s.reducer->allreduce_all();  // the first one sets up Gloo's buffers
    for (int64_t i = 0; i < n; ++i) {
        const auto t0 = synced_now(s);
        s.reducer->allreduce_all();
        seconds.push_back(seconds_since(s, t0));
    }
    p.allreduce_s_per_step = typical_step_s(seconds, k_block_s);
    // Per byte on the wire (half the gradient bytes with a carried --grad-compression), as
    // the estimate uses it: it halves the bytes of a job whose gradients go compressed.
    p.allreduce_bandwidth_bytes_per_s =
        allreduce_bus_bandwidth(p.allreduce_bytes_per_step, s.world(), p.allreduce_s_per_step);
    s.reducer->set_enabled(true);
    // Whole steps as training runs them: gradients all-reduced behind backward, the ranks'
    // agreement on stopping in flight across every step, and their metrics summed over ranks
    // every --log-every steps.
    StopVote vote(s.comm.get());
    StepMetrics metrics;
    StepPhases overlapped;
    auto step = [&] {
        timed_step(s, batches, metrics, overlapped);
        vote.collect();
        if (at_log_point(s, metrics)) {
            metrics.take(s, false);  // which carries the stop flags, as in training
        } else {
            vote.launch();
        }
    };
    for (std::size_t i = 0; i < k_min_warmup_steps; ++i) {
        step();
    }
    vote.collect();
    s.comm->barrier();
    vote.launch();
    seconds.clear();
    for (int64_t i = 0; i < n; ++i) {
        const auto t1 = synced_now(s);
        step();
        seconds.push_back(seconds_since(s, t1));
    }
    vote.collect();
    const double step_s = typical_step_s(seconds, k_block_s);
    p.overlap_fraction = overlap_fraction(p.compute_s_per_step, p.allreduce_s_per_step, step_s);
    p.samples_per_sec = p.batch_size * s.world() / step_s;
}

}  // namespace

std::pair<torch::Tensor, torch::Tensor> Session::batch(const TensorSet& set,
                                                       const std::vector<int64_t>& indices) const {
    auto idx = torch::tensor(indices, torch::kInt64);
    // Copy the uint8 pixels (a quarter of the float bytes) and convert on the device.
    auto x = set.images.index_select(0, idx).to(device).to(torch::kFloat32).div_(255.0f);
    x = x.sub_(mean).div_(stddev);
    return {x, set.labels.index_select(0, idx).to(device)};
}

std::vector<int64_t> Session::epoch_indices(int64_t epoch) const {
    auto gen = at::detail::createCPUGenerator(static_cast<uint64_t>(options.seed + epoch));
    auto perm = torch::randperm(train.size(), gen, torch::kInt64);
    std::vector<int64_t> order(perm.data_ptr<int64_t>(), perm.data_ptr<int64_t>() + perm.numel());
    return data::shard_indices(order, rank(), world(), false);
}

void Session::drop_grads() {
    for (auto& group : optimizer->param_groups()) {
        for (auto& p : group.params()) {
            p.mutable_grad() = torch::Tensor();
        }
    }
}

void Session::set_lr(double lr) {
    for (auto& group : optimizer->param_groups()) {
        group.options().set_lr(lr);
    }
}

std::pair<torch::Tensor, torch::Tensor> Session::train_step(const std::vector<int64_t>& indices,
                                                            double lr, StepMetrics& metrics,
                                                            StepPhases* phases) {
    // The clock, read only when the step is timed (on CUDA it waits for the device).
    const auto now = [&] { return phases ? synced_now(*this) : SteadyClock::time_point{}; };
    const auto t0 = now();
    auto xy = batch(train, indices);
    const auto& [x, y] = xy;
    set_lr(lr);
    drop_grads();
    const bool reduce = reducer && reducer->enabled();
    if (reduce) {
        reducer->prepare();
    }
    auto logits = model->forward(x);
    auto loss = torch::nn::functional::cross_entropy(logits, y);
    const auto t1 = now();
    loss.backward();
    if (reduce) {
        reducer->finish();
    }
    const auto t2 = now();
    optimizer->step();
    metrics.add(loss, logits, y);
    if (phases) {
        const auto t3 = now();
        using Seconds = std::chrono::duration<double>;
        phases->forward += Seconds(t1 - t0).count();
        phases->backward += Seconds(t2 - t1).count();
        phases->optimizer += Seconds(t3 - t2).count();
    }
    return xy;
}

std::pair<double, double> Session::eval_sums(const std::vector<int64_t>& indices) {
    torch::NoGradGuard no_grad;
    model->eval();
    // Summed on the device and read once, after the last batch.
    const auto f64 = torch::TensorOptions(torch::kFloat64).device(device);
    auto loss_sum = torch::zeros({}, f64);
    auto correct = torch::zeros({}, f64);
    constexpr std::size_t k_eval_batch = 256;
    for (std::size_t i = 0; i < indices.size(); i += k_eval_batch) {
        const auto end = std::min(indices.size(), i + k_eval_batch);
        auto [x, y] = batch(test, {indices.begin() + i, indices.begin() + end});
        auto logits = model->forward(x);
        loss_sum +=
            torch::nn::functional::cross_entropy(
                logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                .to(torch::kFloat64);
        correct += logits.argmax(1).eq(y).sum().to(torch::kFloat64);
    }
    model->train();
    const auto totals = torch::stack({loss_sum, correct}).to(torch::kCPU);
    return {totals[0].item<double>(), totals[1].item<double>()};
}

std::vector<double> Session::sum_over_ranks(const std::vector<double>& values) {
    return comm ? comm->allreduce_sum(values) : values;
}

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
        return util::Error{device.error()};
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
            return util::Error{ok.error()};
        }
    }
    torch::manual_seed(static_cast<uint64_t>(options.seed));
    if (auto ok = setup_data(*s); !ok.ok()) {
        return util::Error{ok.error()};
    }
    s->optimizer = make_optimizer(options, *s->model);
    s->schedule =
        LrSchedule{options.lr,      options.scale_lr, env.world_size,    options.warmup_epochs,
                   options.lr_step, options.lr_gamma, s->steps_per_epoch};
    if (env.world_size > 1) {
        if (auto ok = setup_comm(*s); !ok.ok()) {
            return util::Error{ok.error()};
        }
    }
    return s;
}

int run_benchmark(Session& s) {
    Profile p = base_profile(s);
    p.startup_s = process::process_age_s().value_or(0);
    BatchCycle batches(s);
    s.model->train();
    if (s.reducer) {
        s.reducer->set_enabled(false);
    }
    // Compute alone (the reducer is off, so ranks need not run the same number of steps).
    StepMetrics metrics;
    const auto warmup = warm_up(s, batches, metrics);
    p.warmup_steps = static_cast<int64_t>(warmup.size());
    p.warmup_s = std::accumulate(warmup.begin(), warmup.end(), 0.0);
    StepPhases t;
    std::vector<double> seconds;
    double measured_s = 0;
    while (static_cast<int64_t>(seconds.size()) < p.steps || measured_s < k_min_measured_s) {
        seconds.push_back(compute_step(s, batches, metrics, t));
        measured_s += seconds.back();
    }
    p.steps = static_cast<int64_t>(seconds.size());
    const auto stats = step_stats(seconds);
    p.compute_s_per_step = typical_step_s(seconds, k_block_s);
    p.compute_s_mean = stats.mean;
    p.compute_s_stddev = stats.stddev;
    // The phases in the typical step's proportions.
    p.forward_s_per_step = p.compute_s_per_step * t.forward / measured_s;
    p.backward_s_per_step = p.compute_s_per_step * t.backward / measured_s;
    p.samples_per_sec = p.batch_size / p.compute_s_per_step;
    measure_eval(s, p);
    if (s.comm) {
        measure_distributed(s, batches, p);
        s.comm->barrier();
    }
    if (s.rank() != 0) {
        return 0;
    }
    measure_checkpoint(s, p);
    if (s.options.profile_out.empty()) {
        std::cout << profile_json(p).dump() << std::endl;
        return 0;
    }
    std::ofstream out(s.options.profile_out);
    out << profile_json(p).dump(2) << "\n";
    if (!out) {
        s.log->emit(event::k_error,
                    {{field::k_message, fmt::format("cannot write {}", s.options.profile_out)}});
        return 1;
    }
    return 0;
}

}  // namespace kftrain::trainer
