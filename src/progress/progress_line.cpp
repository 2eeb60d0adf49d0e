#include "progress/progress_line.h"

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "progress/text_line.h"
#include "progress/trainer_status.h"
#include "util/json_fields.h"
#include "util/json_text.h"
#include "wire/progress_events.h"

namespace kftrain::progress {
namespace {

namespace event = wire::event;
namespace field = wire::field;

using nlohmann::json;

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

}  // namespace

std::optional<json> progress_object(const std::string& line) {
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
    if (auto version = util::number_at<double>(object, field::k_version);
        version && *version > wire::k_progress_format_version) {
        return std::nullopt;
    }
    return object;
}

Progress progress_from(const json& object) {
    using util::in_range;
    using util::number_at;
    // Counts and rates a program reports are checked for sense: a negative epoch, a step count
    // past any run, an accuracy above 100% are no figures to show.
    constexpr int k_max_epochs = 1'000'000'000;
    constexpr long long k_max_count = 1'000'000'000'000'000LL;
    constexpr double k_max_seconds = 1e10;
    Progress p;
    p.event = object[field::k_event].get<std::string>();
    p.time = util::string_at(object, field::k_time);
    p.rank = in_range(number_at<int>(object, field::k_rank), 0, static_cast<int>(k_max_ranks));
    p.epoch = in_range(number_at<int>(object, field::k_epoch), 0, k_max_epochs);
    p.epochs = in_range(number_at<int>(object, field::k_epochs), 1, k_max_epochs);
    p.step = in_range(number_at<long long>(object, field::k_step), 0LL, k_max_count);
    p.steps_per_epoch =
        in_range(number_at<long long>(object, field::k_steps_per_epoch), 1LL, k_max_count);
    p.global_step = in_range(number_at<long long>(object, field::k_global_step), 0LL, k_max_count);
    p.loss = number_at<double>(object, field::k_loss);
    p.accuracy = in_range(number_at<double>(object, field::k_accuracy), 0.0, 1.0);
    p.samples_per_sec = in_range(number_at<double>(object, field::k_samples_per_sec), 0.0, 1e15);
    p.lr = number_at<double>(object, field::k_lr);
    p.elapsed_s = in_range(number_at<double>(object, field::k_elapsed_s), 0.0, k_max_seconds);
    p.eta_s = in_range(number_at<double>(object, field::k_eta_s), 0.0,
                       std::numeric_limits<double>::max());  // shown as ">1000y" when huge
    p.epoch_time_s = in_range(number_at<double>(object, field::k_epoch_time_s), 0.0, k_max_seconds);
    p.samples = in_range(number_at<long long>(object, field::k_samples), 0LL, k_max_count);
    p.message = util::string_at(object, field::k_message);
    p.path = util::string_at(object, field::k_path);
    p.percent = in_range(number_at<double>(object, field::k_percent), 0.0, 100.0);
    p.last_checkpoint_step =
        in_range(number_at<long long>(object, field::k_last_checkpoint_step), 0LL, k_max_count);
    p.metrics = line_metrics(object);
    p.steps_per_sec = in_range(number_at<double>(object, field::k_steps_per_sec), 0.0, 1e15);
    if (std::string source = util::string_at(object, field::k_source); is_known_source(source)) {
        p.source = std::move(source);  // what kftrain kept of a program's text, never its own
    }
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

json progress_json(const Progress& p) {
    json out = {{field::k_event, p.event}};
    auto put = [&out](const char* key, const auto& value) {
        if (value) {
            out[key] = *value;
        }
    };
    if (!p.time.empty()) {
        out[field::k_time] = p.time;
    }
    put(field::k_epoch, p.epoch);
    put(field::k_epochs, p.epochs);
    put(field::k_step, p.step);
    put(field::k_steps_per_epoch, p.steps_per_epoch);
    put(field::k_global_step, p.global_step);
    put(field::k_loss, p.loss);
    put(field::k_accuracy, p.accuracy);
    put(field::k_samples_per_sec, p.samples_per_sec);
    put(field::k_elapsed_s, p.elapsed_s);
    put(field::k_eta_s, p.eta_s);
    put(field::k_percent, p.percent);
    put(field::k_steps_per_sec, p.steps_per_sec);
    if (!p.metrics.empty()) {
        json metrics = json::object();
        for (const auto& [name, value] : p.metrics) {
            metrics[name] = value;
        }
        out[field::k_metrics] = std::move(metrics);
    }
    if (!p.source.empty()) {
        out[field::k_source] = p.source;
    }
    return out;
}

std::optional<Progress> parse_progress_line(const std::string& line) {
    auto object = progress_object(line);
    if (!object) {
        return std::nullopt;
    }
    return progress_from(*object);
}

bool shows_progress(const Progress& progress) {
    const std::string& e = progress.event;
    return e == event::k_progress || e == event::k_epoch || e == event::k_finish;
}

bool is_checkpoint_event(const Progress& progress) {
    return progress.event == event::k_checkpoint || progress.event == event::k_checkpoint_failed;
}

std::optional<CheckpointReport> checkpoint_report(const Progress& progress) {
    if (!is_checkpoint_event(progress)) {
        return std::nullopt;
    }
    CheckpointReport report;
    report.time = progress.time;
    if (progress.event == event::k_checkpoint) {
        report.step = progress.global_step;
        report.path = progress.path;
        return report;
    }
    report.failed = true;
    report.failed_step = progress.global_step;
    report.step = progress.last_checkpoint_step;
    report.message = progress.message;
    return report;
}

std::optional<CheckpointReport> last_checkpoint(const std::vector<std::string>& lines) {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        auto parsed = parse_progress_line(*it);
        if (parsed && is_checkpoint_event(*parsed)) {
            return checkpoint_report(*parsed);
        }
    }
    return std::nullopt;
}

}  // namespace kftrain::progress
