#include "trainer/run.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <utility>

#include "trainer/checkpoint/files.h"
#include "trainer/checkpoint/io.h"
#include "trainer/data/file_bytes.h"
#include "trainer/data/sampler.h"
#include "trainer/divergence.h"
#include "trainer/process/signals.h"
#include "trainer/run_logger.h"
#include "trainer/session.h"
#include "trainer/step_sync.h"
#include "trainer/trainer_status/reporter.h"
#include "util/text.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;
using SteadyClock = std::chrono::steady_clock;

// Sum loss, correct predictions and samples over a span of steps, summed over ranks.
struct Tally {
    double loss_sum = 0, correct = 0, count = 0;
    void add(const IntervalSums& sums) {
        loss_sum += sums.loss_sum;
        correct += sums.correct;
        count += sums.count;
    }
    double loss() const { return count > 0 ? loss_sum / count : 0; }
    double accuracy() const { return count > 0 ? correct / count : 0; }
};

// Drive the epochs of one rank: steps, logging, evaluation and checkpoints.
class Trainer {
  public:
    Trainer(Session& s, RunLogger& tracker)
        : m_s(s),
          m_tracker(tracker),
          m_divergence(s.options.nan_patience),
          m_stop_vote(s.comm.get()) {}
    int run();

  private:
    util::Result<checkpoint::TrainPosition> resume();
    util::Result<std::string> pick_checkpoint(checkpoint::TrainPosition& pos);
    void warn(const std::string& message);
    void train_step(const std::vector<int64_t>& indices, int64_t step);
    bool check_divergence(const IntervalSums& sums);
    std::string unhealthy_state();
    void log_progress(int64_t epoch, int64_t step, const Tally& tally);
    bool run_epoch(int64_t epoch, int64_t first_step);
    void evaluate(int64_t epoch);
    void write_checkpoint(int64_t epoch_done);
    void dump_params();
    void announce_start();
    void announce_end();
    const char* backend() const;
    double elapsed() const;
    double eta() const;

    Session& m_s;
    RunLogger& m_tracker;
    int64_t m_global_step = 0;
    int64_t m_start_step = 0;
    int64_t m_last_checkpoint = -1;
    DivergenceGuard m_divergence;
    StepMetrics m_metrics;
    StopVote m_stop_vote;
    // The last training batch, to check a state before it is checkpointed.
    std::pair<torch::Tensor, torch::Tensor> m_last_batch;
    SteadyClock::time_point m_start = SteadyClock::now();
    SteadyClock::time_point m_window_start = SteadyClock::now();
    int64_t m_window_samples = 0;
    Tally m_last_epoch;
    // Samples trained by every rank since start, as counted (a short last batch counts short).
    double m_samples_trained = 0;
    // The last evaluation's loss and accuracy: what a run that trained no step reports.
    std::optional<std::pair<double, double>> m_last_eval;
    bool m_stop = false;
};

double Trainer::elapsed() const {
    return std::chrono::duration<double>(SteadyClock::now() - m_start).count();
}

double Trainer::eta() const {
    const int64_t done = m_global_step - m_start_step;
    const int64_t left = m_s.options.epochs * m_s.steps_per_epoch - m_global_step;
    return done > 0 ? elapsed() / static_cast<double>(done) * static_cast<double>(left) : 0;
}

void Trainer::warn(const std::string& message) {
    m_s.log->emit(event::k_warning, {{field::k_message, message}});
}

// On rank 0: remove what interrupted checkpoint writes left, then load the newest usable
// checkpoint, skipping damaged ones with a warning; return its payload for the other ranks
// ("" when there is none and training starts at step 0).
util::Result<std::string> Trainer::pick_checkpoint(checkpoint::TrainPosition& pos) {
    const auto& dir = m_s.options.checkpoint_dir;
    if (dir.empty()) {
        return std::string();
    }
    for (const auto& temp : checkpoint::remove_checkpoint_temps(dir)) {
        warn(fmt::format("removed {}, left by an interrupted checkpoint write", temp));
    }
    auto choice = checkpoint::load_newest_usable(dir, *m_s.model, *m_s.optimizer, pos);
    if (!choice.ok()) {
        return util::Error{choice.error()};
    }
    for (const auto& skipped : choice->skipped) {
        warn(fmt::format("skipped checkpoint {}; resuming from {}", skipped.reason, choice->path));
    }
    if (choice->legacy) {
        warn(fmt::format("{}: written without a checksum by an older trainer, loaded unverified",
                         choice->path));
    }
    return std::move(choice->payload);
}

util::Result<checkpoint::TrainPosition> Trainer::resume() {
    checkpoint::TrainPosition pos;
    auto picked = m_s.rank() == 0 ? pick_checkpoint(pos) : util::Result<std::string>("");
    bool resumed = picked.ok() && !picked->empty();
    if (m_s.comm) {
        // One message for all: "E" and rank 0's error, or "C" and the payload to load.
        auto message =
            m_s.comm->broadcast_bytes(picked.ok() ? "C" + *picked : "E" + picked.error());
        if (message.empty() || message[0] == 'E') {
            return util::Error{m_s.rank() == 0 ? picked.error() : "rank 0: " + message.substr(1)};
        }
        resumed = message.size() > 1;
        if (m_s.rank() != 0 && resumed) {
            auto loaded = checkpoint::load_checkpoint_bytes(
                message.substr(1), "rank 0's checkpoint", *m_s.model, *m_s.optimizer);
            if (!loaded.ok()) {
                // Only this rank fails: exit at once, so that the others see a peer gone
                // instead of waiting in the barrier of an error they did not have.
                throw std::runtime_error(loaded.error());
            }
            pos = *loaded;
        }
    } else if (!picked.ok()) {
        return util::Error{picked.error()};
    }
    if (resumed) {
        m_last_checkpoint = pos.global_step;
    }
    return pos;
}

// Run one step; its loss and accuracy stay on the device until the next sync point.
void Trainer::train_step(const std::vector<int64_t>& indices, int64_t step) {
    const int64_t b = m_s.options.batch_size;
    const auto first = indices.begin() + step * b;
    const auto last = indices.begin() + std::min<int64_t>((step + 1) * b, indices.size());
    m_last_batch = m_s.train_step(std::vector<int64_t>(first, last),
                                  lr_at(m_s.schedule, m_global_step), m_metrics);
}

// Feed the guard the steps of an interval, summed over ranks so that every rank counts the
// same non-finite steps and all stop at the same step; return true once it says stop.
bool Trainer::check_divergence(const IntervalSums& sums) {
    const int64_t first = m_global_step - static_cast<int64_t>(sums.steps()) + 1;
    for (std::size_t i = 0; i < sums.steps(); ++i) {
        const bool diverged = m_divergence.record(first + static_cast<int64_t>(i),
                                                  sums.step_loss(i), sums.step_nonfinite[i]);
        if (m_divergence.streak_started() && m_s.rank() == 0) {
            warn(m_divergence.warning());
        }
        if (diverged) {
            return true;
        }
    }
    return false;
}

void Trainer::log_progress(int64_t epoch, int64_t step, const Tally& tally) {
    const double window =
        std::chrono::duration<double>(SteadyClock::now() - m_window_start).count();
    const double rate = window > 0 ? m_window_samples / window : 0;
    const double lr = lr_at(m_s.schedule, m_global_step - 1);
    m_s.log->emit(event::k_progress, {{field::k_epoch, epoch + 1},
                                      {field::k_epochs, m_s.options.epochs},
                                      {field::k_step, step + 1},
                                      {field::k_steps_per_epoch, m_s.steps_per_epoch},
                                      {field::k_global_step, m_global_step},
                                      {field::k_loss, tally.loss()},
                                      {field::k_accuracy, tally.accuracy()},
                                      {field::k_samples_per_sec, rate},
                                      {field::k_lr, lr},
                                      {field::k_elapsed_s, elapsed()},
                                      {field::k_eta_s, eta()}});
    if (m_s.rank() == 0) {
        m_tracker.log_metrics({{"loss", tally.loss()},
                               {"accuracy", tally.accuracy()},
                               {"samples_per_sec", rate},
                               {"lr", lr}},
                              m_global_step);
    }
    m_window_start = SteadyClock::now();
    m_window_samples = 0;
}

// Run the steps of one epoch from first_step; return false when a stop was requested or
// the loss diverged. Ranks exchange loss and accuracy only at sync points: a progress line,
// a checkpoint, a stop, the epoch's end.
bool Trainer::run_epoch(int64_t epoch, int64_t first_step) {
    const auto indices = m_s.epoch_indices(epoch);
    const auto epoch_start = SteadyClock::now();
    m_window_start = epoch_start;
    Tally tally;
    const auto every = m_s.options.checkpoint_every;
    for (int64_t step = first_step; step < m_s.steps_per_epoch; ++step) {
        train_step(indices, step);
        m_global_step += 1;
        const bool last = step + 1 == m_s.steps_per_epoch;
        const bool log = (step + 1) % m_s.options.log_every == 0 || last;
        const bool checkpoint = every > 0 && m_global_step % every == 0 && !last;
        bool stop = m_stop_vote.collect();
        if (!log && !checkpoint && !stop) {
            m_stop_vote.launch();
            continue;
        }
        const auto sums = m_metrics.take(m_s, process::stop_requested());
        stop = stop || sums.stop;
        tally.add(sums);
        m_window_samples += static_cast<int64_t>(sums.count);
        m_samples_trained += sums.count;
        if (log) {
            log_progress(epoch, step, tally);
        }
        if (check_divergence(sums)) {
            return false;
        }
        if (stop) {
            m_stop = true;
            return false;
        }
        if (checkpoint) {
            write_checkpoint(epoch);
        }
    }
    const double epoch_time =
        std::chrono::duration<double>(SteadyClock::now() - epoch_start).count();
    m_last_epoch = tally;
    const double rate = epoch_time > 0 ? tally.count / epoch_time : 0;
    m_s.log->emit(event::k_epoch, {{field::k_epoch, epoch + 1},
                                   {field::k_epochs, m_s.options.epochs},
                                   {field::k_loss, tally.loss()},
                                   {field::k_accuracy, tally.accuracy()},
                                   {field::k_samples_per_sec, rate},
                                   {field::k_epoch_time_s, epoch_time},
                                   {field::k_elapsed_s, elapsed()},
                                   {field::k_eta_s, eta()}});
    if (m_s.rank() == 0) {
        m_tracker.log_metrics({{"epoch", static_cast<double>(epoch + 1)},
                               {"epoch_loss", tally.loss()},
                               {"epoch_accuracy", tally.accuracy()},
                               {"epoch_samples_per_sec", rate},
                               {"epoch_time_s", epoch_time}},
                              m_global_step);
    }
    return true;
}

void Trainer::evaluate(int64_t epoch) {
    torch::NoGradGuard no_grad;
    if (m_s.comm) {
        auto buffers = m_s.model->buffers();  // batch-norm statistics: evaluate with rank 0's
        m_s.comm->broadcast(buffers);
    }
    const auto indices = data::eval_indices(m_s.test.size(), m_s.rank(), m_s.world());
    const auto [loss_sum, correct] = m_s.eval_sums(indices);
    const auto sums = m_s.sum_over_ranks({loss_sum, correct, static_cast<double>(indices.size())});
    const double n = std::max(sums[2], 1.0);
    m_last_eval = {sums[0] / n, sums[1] / n};
    m_s.log->emit(event::k_eval, {{field::k_epoch, epoch + 1},
                                  {field::k_loss, sums[0] / n},
                                  {field::k_accuracy, sums[1] / n},
                                  {field::k_samples, static_cast<int64_t>(sums[2])}});
    if (m_s.options.metric_lines) {
        m_s.log->print_metrics(sums[1] / n, sums[0] / n);
    }
    if (m_s.rank() == 0) {
        m_tracker.log_metrics({{"eval_loss", sums[0] / n}, {"eval_accuracy", sums[1] / n}},
                              m_global_step);
    }
}

// Return what is wrong with the model's state ("" when nothing): a parameter that is not
// finite, or a non-finite loss on the last batch, in evaluation mode (the next step's loss,
// which the divergence guard has not seen yet).
std::string Trainer::unhealthy_state() {
    torch::NoGradGuard no_grad;
    for (const auto& p : m_s.model->parameters()) {
        if (!torch::isfinite(p).all().item<bool>()) {
            return "the parameters are not finite";
        }
    }
    const auto& [x, y] = m_last_batch;
    if (!x.defined()) {
        return "";
    }
    m_s.model->eval();
    const double loss =
        torch::nn::functional::cross_entropy(m_s.model->forward(x), y).item<double>();
    m_s.model->train();
    return std::isfinite(loss) ? "" : fmt::format("its loss is {}", nonfinite_text(loss));
}

// Write a checkpoint from rank 0; epoch_done counts the epochs finished. A state reached
// through a non-finite loss is never written: it would replace the last good checkpoint.
void Trainer::write_checkpoint(int64_t epoch_done) {
    if (m_s.options.checkpoint_dir.empty() || m_last_checkpoint == m_global_step) {
        return;
    }
    if (m_divergence.unhealthy()) {
        if (m_s.rank() == 0) {
            warn(fmt::format("checkpoint at step {} not written: the loss is not finite",
                             m_global_step));
        }
        return;
    }
    if (m_s.rank() != 0) {
        m_last_checkpoint = m_global_step;
        return;
    }
    if (const auto wrong = unhealthy_state(); !wrong.empty()) {
        warn(fmt::format("checkpoint at step {} not written: {}", m_global_step, wrong));
        return;
    }
    m_last_checkpoint = m_global_step;
    const auto& dir = m_s.options.checkpoint_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {  // checked at start, but a disk can go away
        warn(fmt::format("checkpoint not written: cannot create {}: {}", dir, ec.message()));
        return;
    }
    const auto path =
        (std::filesystem::path(dir) / checkpoint::checkpoint_name(m_global_step)).string();
    auto saved = checkpoint::save_checkpoint(path, *m_s.model, *m_s.optimizer,
                                             checkpoint::TrainPosition{epoch_done, m_global_step});
    if (!saved.ok()) {
        warn("checkpoint not written: " + saved.error());
        return;
    }
    checkpoint::rotate_checkpoints(dir, m_s.options.keep_checkpoints, m_global_step);
    m_s.log->emit(event::k_checkpoint, {{field::k_path, path},
                                        {field::k_epoch, epoch_done},
                                        {field::k_global_step, m_global_step}});
}

void Trainer::dump_params() {
    const char* prefix = std::getenv("KFTRAIN_PARAMS_OUT");
    if (prefix == nullptr || *prefix == '\0') {
        return;
    }
    auto ok =
        checkpoint::write_params_dump(fmt::format("{}.rank{}", prefix, m_s.rank()), *m_s.model);
    if (!ok.ok()) {
        warn(ok.error());
    }
}

const char* Trainer::backend() const {
    return m_s.comm ? comm::backend_name(m_s.comm->backend()) : "none";
}

void Trainer::announce_start() {
    const auto& o = m_s.options;
    const bool resumed = m_start_step > 0 || m_last_checkpoint >= 0;
    m_s.log->emit(event::k_start,
                  {{field::k_model, o.model},
                   {field::k_dataset, o.dataset},
                   {field::k_epochs, o.epochs},
                   {field::k_batch_size, o.batch_size},
                   {field::k_global_batch_size, int64_t{o.batch_size} * m_s.world()},
                   {field::k_lr, lr_at(m_s.schedule, m_global_step)},
                   {field::k_backend, backend()},
                   {field::k_device, m_s.device.str()},
                   {field::k_threads, m_s.threads},
                   {field::k_memory_format, memory_format_name(m_s.model->memory_format())},
                   {field::k_bucket_bytes,
                    m_s.reducer ? Fields(static_cast<int64_t>(m_s.bucket_bytes)) : Fields(nullptr)},
                   {field::k_samples, m_s.train.size()},
                   {field::k_steps_per_epoch, m_s.steps_per_epoch},
                   {field::k_resumed_from, resumed ? Fields(m_start_step) : Fields(nullptr)}});
    if (m_s.rank() == 0) {
        m_tracker.log_params(
            {{"model", o.model},
             {"dataset", o.dataset},
             {"epochs", std::to_string(o.epochs)},
             {"batch_size", std::to_string(o.batch_size)},
             {"lr", fmt::format("{}", o.lr)},
             {"optimizer", o.optimizer},
             {"world_size", std::to_string(m_s.world())},
             {"global_batch_size", std::to_string(int64_t{o.batch_size} * m_s.world())},
             {"backend", backend()},
             {"grad_compression", o.grad_compression},
             {"memory_format", memory_format_name(m_s.model->memory_format())},
             {"bucket_bytes", std::to_string(m_s.bucket_bytes)},
             {"seed", std::to_string(o.seed)}});
    }
}

void Trainer::announce_end() {
    if (m_stop) {
        warn(fmt::format("stopped by a signal at step {}", m_global_step));
        return;
    }
    if (m_divergence.unhealthy()) {
        const auto message =
            m_divergence.error(m_last_checkpoint, !m_s.options.checkpoint_dir.empty());
        m_s.log->emit(event::k_error, {{field::k_message, message}});
        return;
    }
    const auto& o = m_s.options;
    const double t = elapsed();
    const double samples = m_samples_trained;
    // No step trained: the evaluation of the checkpoint it resumed from says where it stands.
    const bool trained = m_last_epoch.count > 0 || !m_last_eval;
    m_s.log->emit(event::k_finish,
                  {{field::k_epochs, o.epochs},
                   {field::k_global_step, m_global_step},
                   {field::k_loss, trained ? m_last_epoch.loss() : m_last_eval->first},
                   {field::k_accuracy, trained ? m_last_epoch.accuracy() : m_last_eval->second},
                   {field::k_elapsed_s, t},
                   {field::k_samples_per_sec, t > 0 ? samples / t : 0}});
}

int Trainer::run() {
    const auto pos = resume();
    if (!pos.ok()) {
        m_s.log->emit(event::k_error, {{field::k_message, pos.error()}});
        if (m_s.comm) {
            m_s.comm->barrier();  // every rank got the same message: rank 0 leaves last
        }
        return 1;
    }
    const auto placed = checkpoint::resume_position(*pos, m_s.steps_per_epoch);
    if (placed.epoch_restarted) {
        warn(fmt::format(
            "the checkpoint's step {} was counted in epochs of another length (another world "
            "size, --batch-size or --samples): epoch {} starts again from its first step",
            pos->global_step, placed.pos.epoch + 1));
    }
    m_global_step = m_start_step = placed.pos.global_step;
    announce_start();
    m_start = SteadyClock::now();
    for (int64_t epoch = m_global_step / m_s.steps_per_epoch; epoch < m_s.options.epochs; ++epoch) {
        const int64_t first = m_global_step - epoch * m_s.steps_per_epoch;
        if (!run_epoch(epoch, first)) {
            write_checkpoint(epoch);
            break;
        }
        evaluate(epoch);
        write_checkpoint(epoch + 1);
    }
    // Resumed from a checkpoint that already completes the epochs (a restart after the last
    // one, or fewer --epochs): evaluate what it holds, so that the run ends with its figures
    // (and Katib reads its metric lines) instead of zeros.
    if (!m_stop && m_start_step > 0 && m_global_step == m_start_step &&
        m_global_step / m_s.steps_per_epoch >= m_s.options.epochs) {
        warn(
            fmt::format("the checkpoint of step {} already completes {}: nothing left to train; "
                        "evaluating it",
                        m_start_step, util::counted(m_s.options.epochs, "epoch")));
        evaluate(m_s.options.epochs - 1);
    }
    dump_params();
    announce_end();
    if (m_s.comm) {
        m_s.comm->barrier();
    }
    if (m_stop) {
        return k_exit_terminated;
    }
    return m_divergence.unhealthy() ? 1 : 0;
}

}  // namespace

TorchCuda probe_torch_cuda() {
    TorchCuda facts;
    facts.devices = static_cast<int>(torch::cuda::device_count());
    // libc10_cuda registers CUDA's device guard when it loads: only CUDA builds have it.
    facts.built = facts.devices > 0 || c10::impl::hasDeviceGuardImpl(c10::DeviceType::CUDA);
    return facts;
}

int run_trainer(const TrainOptions& options, const DistEnv& env, std::ostream& out,
                std::ostream& err) {
    process::install_stop_handlers();
    ProgressLog log(out, err, options.log_format == "json", env.rank, env.world_size);
    const auto warn = [&log](const std::string& message) {
        log.emit(event::k_warning, {{field::k_message, message}});
    };
    // Declared before the tracker, so that it outlives the tracker's last warnings.
    const auto status = trainer_status::make_status_reporter(env.rank, process_env(), warn);
    if (status->active()) {
        log.set_listener([&status](const std::string& name, const Fields& fields) {
            status->on_event(name, fields);
        });
    }
    auto tracker = make_run_logger(RunInfo{env.rank, env.world_size, options.checkpoint_dir, warn});
    try {
        auto session = open_session(options, env, log);
        if (!session.ok()) {
            log.emit(event::k_error, {{field::k_message, session.error()}});
            tracker->set_status(RunStatus::failed);
            return 1;
        }
        if (options.benchmark_steps > 0) {
            return run_benchmark(**session);
        }
        Trainer trainer(**session, *tracker);
        const int code = trainer.run();
        // The issue asks for FAILED after SIGTERM too; a restart sets the run back to RUNNING.
        tracker->set_status(code == 0 ? RunStatus::finished : RunStatus::failed);
        return code;
    } catch (const std::exception& e) {
        const auto hint = env.world_size > 1 ? " (a peer failed, exited or timed out)" : "";
        log.emit(event::k_error, {{field::k_message, util::first_line(e.what()) + hint}});
        tracker->set_status(RunStatus::failed);
        return 1;
    }
}

}  // namespace kftrain::trainer
