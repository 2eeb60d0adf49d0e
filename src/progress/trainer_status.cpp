#include "progress/trainer_status.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>

#include "util/json_fields.h"
#include "util/time_text.h"
#include "wire/progress_events.h"
#include "wire/trainer_status_metrics.h"

namespace kftrain::progress {
namespace {

using nlohmann::json;
namespace field = wire::field;

using util::member;
using util::string_at;

std::optional<double> number_text(const std::string& text) {
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

// The metrics by name, those whose value is a number.
std::map<std::string, double> numeric_metrics(const json& metrics) {
    std::map<std::string, double> out;
    for (const auto& metric : metrics.is_array() ? metrics : json::array()) {
        if (auto value = number_text(string_at(metric, "value"))) {
            out[string_at(metric, "name")] = *value;
        }
    }
    return out;
}

// The first of these names the metrics have: the trainer's own, then the Kubeflow SDK's
// and Transformers' names for the same thing.
std::optional<double> metric(const std::map<std::string, double>& metrics,
                             std::initializer_list<const char*> names) {
    for (const char* name : names) {
        auto it = metrics.find(name);
        if (it != metrics.end()) {
            return it->second;
        }
    }
    return std::nullopt;
}

using util::in_range;

// A count posted as a metric: within [low, high] (nor cast past the type's range), else none.
template <typename T>
std::optional<T> whole(std::optional<double> value, double low, double high) {
    value = in_range(value, low, high);
    return value ? std::optional<T>(static_cast<T>(*value)) : std::nullopt;
}

constexpr double k_max_epochs = 1e9;
// How much older than the newer report the other may be for its position to be shown with it.
constexpr double k_position_fresh_s = 30;
constexpr double k_max_steps = 1e15;

// Put the metrics Progress has a place for there; false when there are none.
bool read_metrics(const json& metrics_json, Progress& p) {
    const auto metrics = numeric_metrics(metrics_json);
    p.loss = metric(metrics, {wire::metric::k_loss, "train_loss"});
    p.accuracy = metric(
        metrics, {wire::metric::k_accuracy, "train_accuracy", wire::metric::k_eval_accuracy});
    if (p.accuracy && *p.accuracy > 1) {
        *p.accuracy /= 100;  // a percentage
    }
    p.accuracy = in_range(p.accuracy, 0.0, 1.0);
    p.samples_per_sec = in_range(
        metric(metrics,
               {wire::metric::k_samples_per_sec, "samples_per_second", "train_samples_per_second"}),
        0.0, 1e15);
    p.lr = metric(metrics, {field::k_lr, "learning_rate"});
    if (auto epoch = in_range(metric(metrics, {wire::metric::k_epoch}), 0.0, k_max_epochs)) {
        p.epoch = static_cast<int>(std::ceil(*epoch));  // 1.4 (Transformers): in epoch 2
    }
    p.epochs = whole<int>(metric(metrics, {field::k_epochs}), 1, k_max_epochs);
    p.step = whole<long long>(metric(metrics, {field::k_step}), 0, k_max_steps);
    p.global_step = whole<long long>(metric(metrics, {field::k_global_step}), 0, k_max_steps);
    return p.loss || p.accuracy || p.samples_per_sec || p.lr || p.epoch || p.epochs || p.step ||
           p.global_step;
}

// Every metric with a name and a value, as posted.
std::vector<std::pair<std::string, std::string>> named_metrics(const json& metrics) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& metric : metrics.is_array() ? metrics : json::array()) {
        std::string name = string_at(metric, "name");
        std::string value = string_at(metric, "value");
        if (!name.empty() && !value.empty()) {
            out.emplace_back(std::move(name), std::move(value));
        }
    }
    return out;
}

}  // namespace

std::optional<Progress> trainer_status_progress(const json& trainer_status) {
    if (!trainer_status.is_object()) {
        return std::nullopt;
    }
    Progress p;
    p.event = wire::event::k_progress;
    p.time = string_at(trainer_status, "lastUpdatedTime");
    p.source = k_trainer_status_source;
    bool known = false;
    if (const json& percent = member(trainer_status, "progressPercentage"); percent.is_number()) {
        p.percent = in_range<double>(percent.get<double>(), 0, 100);
        known = known || p.percent;
    }
    if (const json& eta = member(trainer_status, "estimatedRemainingSeconds"); eta.is_number()) {
        p.eta_s = in_range<double>(eta.get<double>(), 0, std::numeric_limits<double>::max());
        known = known || p.eta_s;
    }
    known = read_metrics(member(trainer_status, "metrics"), p) || known;
    p.metrics = named_metrics(member(trainer_status, "metrics"));
    known = known || !p.metrics.empty();
    return known ? std::optional<Progress>(p) : std::nullopt;
}

bool metric_has_field(const std::string& name) {
    static const char* const k_fields[] = {wire::metric::k_loss,
                                           "train_loss",
                                           wire::metric::k_accuracy,
                                           "train_accuracy",
                                           wire::metric::k_eval_accuracy,
                                           wire::metric::k_samples_per_sec,
                                           "samples_per_second",
                                           "train_samples_per_second",
                                           field::k_lr,
                                           "learning_rate",
                                           wire::metric::k_epoch,
                                           field::k_epochs,
                                           field::k_step,
                                           field::k_global_step};
    for (const char* field_name : k_fields) {
        if (name == field_name) {
            return true;
        }
    }
    return false;
}

std::optional<Progress> merge_progress(std::optional<Progress> a, std::optional<Progress> b) {
    if (!a || !b) {
        return a ? a : b;
    }
    // What was read from a program's text gives way to what it posted (docs/progress.md).
    auto from_text = [](const Progress& p) {
        return !p.source.empty() && p.source != k_trainer_status_source;
    };
    if (from_text(*a) != from_text(*b)) {
        return from_text(*a) ? b : a;
    }
    const auto ta = util::parse_timestamp(a->time);
    const auto tb = util::parse_timestamp(b->time);
    if (tb && (!ta || *tb > *ta)) {
        std::swap(a, b);  // a is the newer
    }
    Progress& out = *a;
    const Progress& older = *b;
    auto fill = [](auto& field, const auto& other) {
        if (!field) {
            field = other;
        }
    };
    fill(out.epochs, older.epochs);
    fill(out.steps_per_epoch, older.steps_per_epoch);
    fill(out.loss, older.loss);
    fill(out.accuracy, older.accuracy);
    fill(out.samples_per_sec, older.samples_per_sec);
    fill(out.lr, older.lr);
    // Where the run stands (its percentage, epoch, step, time left) is taken from the older
    // report only while that is recent: a percentage posted a while ago beside a newer epoch
    // would show the run at two places ("31% epoch 5/8").
    const auto newer_time = util::parse_timestamp(out.time);
    const auto older_time = util::parse_timestamp(older.time);
    if (!newer_time || !older_time ||
        std::difftime(*newer_time, *older_time) <= k_position_fresh_s) {
        fill(out.epoch, older.epoch);
        fill(out.step, older.step);
        fill(out.global_step, older.global_step);
        fill(out.elapsed_s, older.elapsed_s);
        fill(out.eta_s, older.eta_s);
        fill(out.percent, older.percent);
    }
    for (const auto& metric : older.metrics) {
        const bool known = std::any_of(out.metrics.begin(), out.metrics.end(),
                                       [&](const auto& m) { return m.first == metric.first; });
        if (!known) {
            out.metrics.push_back(metric);
        }
    }
    return a;
}

}  // namespace kftrain::progress
