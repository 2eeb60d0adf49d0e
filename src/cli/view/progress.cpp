#include "cli/view/progress.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "progress/progress_line.h"
#include "progress/trainer_status.h"
#include "util/json_fields.h"
#include "util/json_text.h"
#include "util/redact.h"
#include "util/text.h"
#include "util/time_text.h"
#include "wire/progress_events.h"

namespace kftrain::cli::view {
namespace {

namespace event = wire::event;
namespace field = wire::field;

using nlohmann::json;

// Append " <label> <value>" for each field present, in the order called.
class Parts {
  public:
    explicit Parts(std::string head) : m_text(std::move(head)) {}

    template <typename T>
    Parts& add(const char* format, const std::optional<T>& value) {
        if (value) {
            m_text += " ";
            m_text += fmt::format(fmt::runtime(format), *value);
        }
        return *this;
    }
    // " 1 epoch" or " 3 epochs"; nothing when the count is unknown.
    template <typename T>
    Parts& count(const std::optional<T>& n, const char* noun) {
        if (n) {
            m_text += " " + util::counted(static_cast<long long>(*n), noun);
        }
        return *this;
    }
    Parts& percent(const std::optional<double>& ratio) {
        return add("acc {:.1f}%", ratio ? std::optional<double>(*ratio * 100) : std::nullopt);
    }
    Parts& duration(const char* label, const std::optional<double>& seconds) {
        if (seconds) {
            m_text += fmt::format(" {} {}", label, util::format_duration(*seconds));
        }
        return *this;
    }
    // The text; no leading space where the head was empty (no epoch known).
    std::string str() const { return m_text.rfind(' ', 0) == 0 ? m_text.substr(1) : m_text; }

  private:
    std::string m_text;
};

// A figure a program reported, readable at any size: fixed with decimals below a million, four
// significant digits with an exponent above (a diverged loss of 1e300 is not 300 digits).
std::optional<std::string> figure(const std::optional<double>& value, int decimals) {
    if (!value) {
        return std::nullopt;
    }
    if (std::fabs(*value) >= 1e6) {
        return fmt::format("{:.4g}", *value);
    }
    return fmt::format("{:.{}f}", *value, decimals);
}

// "epoch 2/3" or "epoch 2" or "" when the epoch is unknown.
std::string epoch_head(const job::Progress& p) {
    if (!p.epoch) {
        return "";
    }
    return p.epochs ? fmt::format("epoch {}/{}", *p.epoch, *p.epochs)
                    : fmt::format("epoch {}", *p.epoch);
}

// The metrics a program posted that have no field of their own: " name value", the first
// few, then how many more.
std::string other_metrics(const job::Progress& p) {
    constexpr int k_shown = 6;
    std::string out;
    int shown = 0;
    int more = 0;
    for (const auto& [name, value] : p.metrics) {
        if (progress::metric_has_field(name)) {
            continue;
        }
        if (shown < k_shown) {  // names and values as the program posted them: escaped
            const std::string shown_value = util::names_credential(name) ? "***" : value;
            out += fmt::format(" {} {}", util::escape_line(util::excerpt(name, 64)),
                               util::escape_line(util::excerpt(shown_value, 64)));
            ++shown;
        } else {
            ++more;
        }
    }
    return more > 0 ? out + fmt::format(" (+{} more)", more) : out;
}

// The parts, then the program's own metrics; no leading space when the parts are empty.
std::string with_metrics(const Parts& parts, const job::Progress& p) {
    const std::string head = parts.str();
    const std::string metrics = other_metrics(p);
    return head.empty() && !metrics.empty() ? metrics.substr(1) : head + metrics;
}

std::string format_step(const job::Progress& p) {
    std::string head = epoch_head(p);
    if (p.percent) {  // a TrainJob's trainerStatus
        head = fmt::format("{:g}%", *p.percent) + (head.empty() ? "" : " " + head);
    }
    Parts parts(head);
    if (p.step && p.steps_per_epoch && p.epoch && !p.epochs && !p.percent) {
        // A Lightning bar: how far the epoch is, of a number of epochs it does not print.
        parts.add("step {}", std::optional<std::string>(fmt::format(
                                 "{}/{} ({:.0f}% of the epoch; the number of epochs is not "
                                 "printed)",
                                 *p.step, *p.steps_per_epoch,
                                 100.0 * static_cast<double>(*p.step) /
                                     static_cast<double>(*p.steps_per_epoch))));
    } else if (p.step && p.steps_per_epoch) {
        parts.add("step {}",
                  std::optional<std::string>(fmt::format("{}/{}", *p.step, *p.steps_per_epoch)));
    } else {
        parts.add("step {}", p.step);
    }
    parts.add("loss {}", figure(p.loss, 4)).percent(p.accuracy);
    parts.add("{} samples/s", figure(p.samples_per_sec, 0));
    parts.add("{} steps/s", p.samples_per_sec ? std::nullopt : figure(p.steps_per_sec, 2));
    parts.duration("ETA", p.eta_s);
    return with_metrics(parts, p);
}

std::string format_epoch(const job::Progress& p) {
    Parts parts(epoch_head(p) + " done:");
    parts.add("loss {}", figure(p.loss, 4)).percent(p.accuracy);
    parts.add("{} samples/s", figure(p.samples_per_sec, 0)).duration("took", p.epoch_time_s);
    parts.duration("ETA", p.eta_s);
    return with_metrics(parts, p);
}

std::string format_finish(const job::Progress& p) {
    Parts parts("finished:");
    parts.count(p.epochs, "epoch").count(p.global_step, "step");
    parts.add("loss {}", figure(p.loss, 4)).percent(p.accuracy);
    parts.add("{} samples/s", figure(p.samples_per_sec, 0)).duration("in", p.elapsed_s);
    return with_metrics(parts, p);
}

// The start line names the run's setup; those fields are not part of Progress.
std::string format_start_line(const json& o) {
    std::string out = fmt::format("start: model {} dataset {}", util::string_at(o, field::k_model),
                                  util::string_at(o, field::k_dataset));
    Parts parts(out);
    parts.count(util::number_at<int>(o, field::k_epochs), "epoch");
    parts.add("batch {}", util::number_at<long long>(o, field::k_batch_size));
    parts.add("(global {})", util::number_at<long long>(o, field::k_global_batch_size));
    parts.add("lr {:g}", util::number_at<double>(o, field::k_lr));
    auto present = [&o](const char* key) {
        std::string value = util::string_at(o, key);
        return value.empty() ? std::nullopt : std::optional<std::string>(value);
    };
    parts.add("backend {}", present(field::k_backend));
    parts.add("device {}", present(field::k_device));
    parts.add("{}", present(field::k_memory_format));
    parts.add("{} threads", util::number_at<int>(o, field::k_threads));
    auto bucket_mib = util::number_at<double>(o, field::k_bucket_bytes);
    if (bucket_mib) {
        *bucket_mib /= 1024.0 * 1024.0;
    }
    parts.add("buckets {:.2f} MiB", bucket_mib);
    parts.add("{} samples", util::number_at<long long>(o, field::k_samples));
    parts.add("{} steps/epoch", util::number_at<long long>(o, field::k_steps_per_epoch));
    // A number on the wire (null on a fresh start): the global step the checkpoint held.
    if (auto resumed = util::number_at<long long>(o, field::k_resumed_from)) {
        return fmt::format("{}, resumed from step {}", parts.str(), *resumed);
    }
    return parts.str();
}

}  // namespace

std::string format_progress(const job::Progress& p) {
    if (p.event == event::k_progress) {
        return format_step(p);
    }
    if (p.event == event::k_epoch) {
        return format_epoch(p);
    }
    if (p.event == event::k_finish) {
        return format_finish(p);
    }
    if (p.event == event::k_eval) {
        Parts parts(fmt::format("eval epoch {}:", p.epoch ? std::to_string(*p.epoch) : "?"));
        return parts.add("loss {}", figure(p.loss, 4))
            .percent(p.accuracy)
            .add("on {} samples", p.samples)
            .str();
    }
    if (p.event == event::k_checkpoint) {
        Parts parts("checkpoint");
        return parts.add("epoch {}", p.epoch).add("step {}", p.global_step).str() + ": " + p.path;
    }
    if (p.event == event::k_checkpoint_failed) {
        Parts parts("checkpoint");
        return parts.add("epoch {}", p.epoch).str() + " " +
               format_checkpoint(*progress::checkpoint_report(p));
    }
    if (p.event == event::k_start) {
        Parts parts("start:");
        return parts.count(p.epochs, "epoch")
            .add("{} samples", p.samples)
            .add("lr {:g}", p.lr)
            .str();
    }
    return p.message.empty() ? p.event : fmt::format("{}: {}", p.event, p.message);
}

std::string format_checkpoint(const job::CheckpointReport& c) {
    if (!c.failed) {
        return fmt::format("step {}{}", c.step ? std::to_string(*c.step) : "?",
                           c.path.empty() ? "" : ": " + c.path);
    }
    const std::string from = c.step ? fmt::format("a resume starts from step {}", *c.step)
                                    : std::string("none is written: a resume starts over");
    return fmt::format("step {} NOT written: {}; {}",
                       c.failed_step ? std::to_string(*c.failed_step) : "?",
                       c.message.empty() ? "no reason given" : c.message, from);
}

std::optional<std::string> format_trainer_line(const std::string& line) {
    auto object = progress::progress_object(line);
    if (!object) {
        return std::nullopt;
    }
    if ((*object)[field::k_event] == event::k_start) {
        return format_start_line(*object);
    }
    return format_progress(progress::progress_from(*object));
}

}  // namespace kftrain::cli::view
