#include "cli/view/progress.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli/job/trainer_status.h"
#include "util/json_text.h"
#include "util/text.h"
#include "util/time_text.h"
#include "wire/progress_events.h"

namespace kftrain::cli::view {
namespace {

namespace event = wire::event;
namespace field = wire::field;

using nlohmann::json;

// Read key as a T; nullopt when it is missing, no number, or (for an integer type) not a whole
// number within T's range: a program's progress line is not to be trusted (epoch 1e308 cast to
// int is undefined).
template <typename T>
std::optional<T> number(const json& object, const char* key) {
    auto it = object.find(key);
    return it == object.end() ? std::nullopt : util::json_number<T>(*it);
}

// Return a text field: what is not a string (a number, an object) is not that field's text.
std::string text(const json& object, const char* key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

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
        if (job::metric_has_field(name)) {
            continue;
        }
        if (shown < k_shown) {
            out += fmt::format(" {} {}", name, value);
            ++shown;
        } else {
            ++more;
        }
    }
    return more > 0 ? out + fmt::format(" (+{} more)", more) : out;
}

std::string format_step(const job::Progress& p) {
    std::string head = epoch_head(p);
    if (p.percent) {  // a TrainJob's trainerStatus
        head = fmt::format("{:g}%", *p.percent) + (head.empty() ? "" : " " + head);
    }
    Parts parts(head);
    if (p.step && p.steps_per_epoch) {
        parts.add("step {}",
                  std::optional<std::string>(fmt::format("{}/{}", *p.step, *p.steps_per_epoch)));
    } else {
        parts.add("step {}", p.step);
    }
    parts.add("loss {:.4f}", p.loss).percent(p.accuracy);
    parts.add("{:.0f} samples/s", p.samples_per_sec).duration("ETA", p.eta_s);
    return parts.str() + other_metrics(p);
}

std::string format_epoch(const job::Progress& p) {
    Parts parts(epoch_head(p) + " done:");
    parts.add("loss {:.4f}", p.loss).percent(p.accuracy);
    parts.add("{:.0f} samples/s", p.samples_per_sec).duration("took", p.epoch_time_s);
    parts.duration("ETA", p.eta_s);
    return parts.str() + other_metrics(p);
}

std::string format_finish(const job::Progress& p) {
    Parts parts("finished:");
    parts.count(p.epochs, "epoch").count(p.global_step, "step");
    parts.add("loss {:.4f}", p.loss).percent(p.accuracy);
    parts.add("{:.0f} samples/s", p.samples_per_sec).duration("in", p.elapsed_s);
    return parts.str() + other_metrics(p);
}

// The start line names the run's setup; those fields are not part of Progress.
std::string format_start_line(const json& o) {
    std::string out = fmt::format("start: model {} dataset {}", text(o, field::k_model),
                                  text(o, field::k_dataset));
    Parts parts(out);
    parts.count(number<int>(o, field::k_epochs), "epoch");
    parts.add("batch {}", number<long long>(o, field::k_batch_size));
    parts.add("(global {})", number<long long>(o, field::k_global_batch_size));
    parts.add("lr {:g}", number<double>(o, field::k_lr));
    auto present = [&o](const char* key) {
        std::string value = text(o, key);
        return value.empty() ? std::nullopt : std::optional<std::string>(value);
    };
    parts.add("backend {}", present(field::k_backend));
    parts.add("device {}", present(field::k_device));
    parts.add("{}", present(field::k_memory_format));
    parts.add("{} threads", number<int>(o, field::k_threads));
    auto bucket_mib = number<double>(o, field::k_bucket_bytes);
    if (bucket_mib) {
        *bucket_mib /= 1024.0 * 1024.0;
    }
    parts.add("buckets {:.2f} MiB", bucket_mib);
    parts.add("{} samples", number<long long>(o, field::k_samples));
    parts.add("{} steps/epoch", number<long long>(o, field::k_steps_per_epoch));
    std::string resumed = text(o, field::k_resumed_from);
    if (!resumed.empty()) {
        return parts.str() + ", resumed from " + resumed;
    }
    return parts.str();
}

// The program's own metrics of a line ("metrics": {"name": value}), numbers and strings, in
// the limits of a trainerStatus: at most 256, names and values of 1..64 characters.
std::vector<std::pair<std::string, std::string>> line_metrics(const json& object) {
    constexpr size_t k_max_metrics = 256;
    constexpr size_t k_max_text = 64;
    std::vector<std::pair<std::string, std::string>> out;
    const auto it = object.find(field::k_metrics);
    if (it == object.end() || !it->is_object()) {
        return out;
    }
    for (const auto& [name, value] : it->items()) {
        std::string shown;
        if (value.is_string()) {
            shown = value.get<std::string>();
        } else if (value.is_number()) {
            shown = fmt::format("{:g}", value.get<double>());
        }
        if (out.size() == k_max_metrics || name.empty() || name.size() > k_max_text ||
            shown.empty() || shown.size() > k_max_text) {
            continue;
        }
        out.emplace_back(name, std::move(shown));
    }
    return out;
}

// The most ranks a progress line's rank_step_s may list.
constexpr size_t k_max_ranks = 100000;

std::optional<json> trainer_object(const std::string& line) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] != '{') {
        return std::nullopt;
    }
    json object = util::parse_untrusted_json(std::string_view(line).substr(start));
    if (object.is_discarded() || !object.is_object() || !object.contains(field::k_event) ||
        !object[field::k_event].is_string()) {
        return std::nullopt;
    }
    // A line of a later, incompatible version of the format is not this kftrain's to read.
    if (auto version = number<double>(object, field::k_version);
        version && *version > wire::k_progress_format_version) {
        return std::nullopt;
    }
    return object;
}

job::Progress progress_from(const json& object) {
    job::Progress p;
    p.event = object[field::k_event].get<std::string>();
    p.time = text(object, field::k_time);
    p.rank = number<int>(object, field::k_rank);
    p.epoch = number<int>(object, field::k_epoch);
    p.epochs = number<int>(object, field::k_epochs);
    p.step = number<long long>(object, field::k_step);
    p.steps_per_epoch = number<long long>(object, field::k_steps_per_epoch);
    p.global_step = number<long long>(object, field::k_global_step);
    p.loss = number<double>(object, field::k_loss);
    p.accuracy = number<double>(object, field::k_accuracy);
    p.samples_per_sec = number<double>(object, field::k_samples_per_sec);
    p.lr = number<double>(object, field::k_lr);
    p.elapsed_s = number<double>(object, field::k_elapsed_s);
    p.eta_s = number<double>(object, field::k_eta_s);
    p.epoch_time_s = number<double>(object, field::k_epoch_time_s);
    p.samples = number<long long>(object, field::k_samples);
    p.message = text(object, field::k_message);
    p.path = text(object, field::k_path);
    if (auto percent = number<double>(object, field::k_percent);
        percent && *percent >= 0 && *percent <= 100) {
        p.percent = percent;
    }
    p.metrics = line_metrics(object);
    if (auto ranks = object.find(field::k_rank_step_s);
        ranks != object.end() && ranks->is_array() && ranks->size() <= k_max_ranks) {
        for (const json& seconds : *ranks) {
            if (!seconds.is_number()) {
                p.rank_step_s.clear();
                break;
            }
            p.rank_step_s.push_back(seconds.get<double>());
        }
    }
    return p;
}

}  // namespace

std::optional<job::Progress> parse_progress_line(const std::string& line) {
    auto object = trainer_object(line);
    if (!object) {
        return std::nullopt;
    }
    return progress_from(*object);
}

bool shows_progress(const job::Progress& progress) {
    const std::string& e = progress.event;
    return e == event::k_progress || e == event::k_epoch || e == event::k_finish;
}

std::optional<job::Progress> last_progress(const std::vector<std::string>& lines) {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        auto parsed = parse_progress_line(*it);
        if (parsed && shows_progress(*parsed)) {
            return parsed;
        }
    }
    return std::nullopt;
}

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
        return parts.add("loss {:.4f}", p.loss)
            .percent(p.accuracy)
            .add("on {} samples", p.samples)
            .str();
    }
    if (p.event == event::k_checkpoint) {
        Parts parts("checkpoint");
        return parts.add("epoch {}", p.epoch).add("step {}", p.global_step).str() + ": " + p.path;
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

std::optional<std::string> format_trainer_line(const std::string& line) {
    auto object = trainer_object(line);
    if (!object) {
        return std::nullopt;
    }
    if ((*object)[field::k_event] == event::k_start) {
        return format_start_line(*object);
    }
    return format_progress(progress_from(*object));
}

}  // namespace kftrain::cli::view
