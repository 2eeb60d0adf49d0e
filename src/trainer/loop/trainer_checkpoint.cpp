// The Trainer's checkpoints: resuming from the newest usable one, and writing them.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "trainer/checkpoint/files.h"
#include "trainer/checkpoint/io.h"
#include "trainer/loop/trainer.h"
#include "wire/progress_events.h"

namespace kftrain::trainer {
namespace {

namespace event = wire::event;
namespace field = wire::field;

}  // namespace

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
        return util::error(choice.error());
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
            return util::error(m_s.rank() == 0 ? picked.error() : "rank 0: " + message.substr(1));
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
        return util::error(picked.error());
    }
    if (resumed) {
        m_last_checkpoint = pos.global_step;
        m_last_written = pos.global_step;
    }
    return pos;
}

void Trainer::checkpoint_failed(int64_t epoch_done, const std::string& why) {
    m_s.log->emit(event::k_checkpoint_failed,
                  {{field::k_epoch, epoch_done},
                   {field::k_global_step, m_global_step},
                   {field::k_message, why},
                   {field::k_last_checkpoint_step,
                    m_last_written >= 0 ? Fields(m_last_written) : Fields(nullptr)}});
}

void Trainer::write_checkpoint(int64_t epoch_done) {
    if (m_s.options.checkpoint_dir.empty() || m_last_checkpoint == m_global_step) {
        return;
    }
    if (m_divergence.unhealthy()) {
        if (m_s.rank() == 0) {
            checkpoint_failed(epoch_done, "the loss is not finite");
        }
        return;
    }
    if (m_s.rank() != 0) {
        m_last_checkpoint = m_global_step;
        return;
    }
    if (const auto wrong = m_s.unhealthy_state(m_last_batch); !wrong.empty()) {
        checkpoint_failed(epoch_done, wrong);
        return;
    }
    m_last_checkpoint = m_global_step;
    const auto& dir = m_s.options.checkpoint_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {  // checked at start, but a disk can go away
        checkpoint_failed(epoch_done, fmt::format("cannot create {}: {}", dir, ec.message()));
        return;
    }
    const auto path =
        (std::filesystem::path(dir) / checkpoint::checkpoint_name(m_global_step)).string();
    const auto started = std::chrono::steady_clock::now();
    auto saved = checkpoint::save_checkpoint(path, *m_s.model, *m_s.optimizer,
                                             checkpoint::TrainPosition{epoch_done, m_global_step});
    if (!saved.ok()) {
        checkpoint_failed(epoch_done, saved.error());
        return;
    }
    m_last_written = m_global_step;
    checkpoint::rotate_checkpoints(dir, m_s.options.keep_checkpoints, m_global_step);
    m_exported.observe_checkpoint(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
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

}  // namespace kftrain::trainer
