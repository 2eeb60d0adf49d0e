#include "trainer/loop/trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "trainer/comm/backend.h"
#include "trainer/data/sampler.h"
#include "trainer/process/signals.h"
#include "util/text.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;
using SteadyClock = std::chrono::steady_clock;

}  // namespace

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

void Trainer::train_step(const std::vector<int64_t>& indices, int64_t step) {
    const int64_t b = m_s.options.batch_size;
    const auto first = indices.begin() + step * b;
    const auto last = indices.begin() + std::min<int64_t>((step + 1) * b, indices.size());
    m_last_batch = m_s.train_step(std::vector<int64_t>(first, last),
                                  lr_at(m_s.schedule, m_global_step), m_metrics);
    m_exported.observe_step(m_metrics.last_step_seconds(), m_metrics.last_wait_seconds(),
                            last - first);
}

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

void Trainer::log_progress(int64_t epoch, int64_t step, const Tally& tally,
                           const IntervalSums& sums) {
    const double window =
        std::chrono::duration<double>(SteadyClock::now() - m_window_start).count();
    const double rate = window > 0 ? m_window_samples / window : 0;
    const double lr = lr_at(m_s.schedule, m_global_step - 1);
    Fields fields = {{field::k_epoch, epoch + 1},
                     {field::k_epochs, m_s.options.epochs},
                     {field::k_step, step + 1},
                     {field::k_steps_per_epoch, m_s.steps_per_epoch},
                     {field::k_global_step, m_global_step},
                     {field::k_loss, tally.loss()},
                     {field::k_accuracy, tally.accuracy()},
                     {field::k_samples_per_sec, rate},
                     {field::k_lr, lr},
                     {field::k_elapsed_s, elapsed()},
                     {field::k_eta_s, eta()}};
    if (sums.rank_compute_s.size() > 1 && sums.steps() > 0) {
        Fields per_step = Fields::array();
        for (double seconds : sums.rank_compute_s) {  // microseconds are plenty
            per_step.push_back(std::round(seconds / static_cast<double>(sums.steps()) * 1e6) / 1e6);
        }
        fields[field::k_rank_step_s] = per_step;
    }
    m_s.log->emit(event::k_progress, fields);
    const double planned = static_cast<double>(m_s.options.epochs * m_s.steps_per_epoch);
    m_exported.set_progress(
        {tally.loss(), tally.accuracy(), lr,
         static_cast<double>(epoch) + static_cast<double>(step + 1) / m_s.steps_per_epoch,
         planned > 0 ? static_cast<double>(m_global_step) / planned : 0, eta()});
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
        const auto sums = m_metrics.take(m_s.comm.get(), process::stop_requested());
        stop = stop || sums.stop;
        tally.add(sums);
        m_window_samples += static_cast<int64_t>(sums.count);
        m_samples_trained += sums.count;
        if (log) {
            log_progress(epoch, step, tally, sums);
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
    m_exported.set_eval(sums[0] / n, sums[1] / n);
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
        return process::k_exit_terminated;
    }
    return m_divergence.unhealthy() ? 1 : 0;
}

}  // namespace kftrain::trainer
