#include "trainer/trainer_status/event_status.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "wire/progress_events.h"

namespace kftrain::trainer::trainer_status {
namespace {

namespace event = wire::event;
namespace field = wire::field;

std::optional<double> number(const Fields& f, const char* key) {
    const auto it = f.find(key);
    if (it == f.end() || !it->is_number()) {
        return std::nullopt;
    }
    return it->get<double>();
}

int64_t integer(const Fields& f, const char* key) {
    return static_cast<int64_t>(number(f, key).value_or(0));
}

void add(std::vector<StatusMetric>& out, const char* name, const std::optional<double>& value,
         int decimals) {
    if (value) {
        out.push_back(StatusMetric{name, metric_value(*value, decimals)});
    }
}

}  // namespace

std::optional<int> percent_done(int64_t global_step, int64_t total_steps) {
    if (total_steps <= 0) {
        return std::nullopt;
    }
    const int64_t percent = std::clamp<int64_t>(global_step, 0, total_steps) * 100 / total_steps;
    return static_cast<int>(std::min<int64_t>(percent, 99));
}

int remaining_seconds(double seconds) {
    constexpr double k_max = std::numeric_limits<int32_t>::max();
    if (!(seconds > 0)) {
        return 0;
    }
    return static_cast<int>(std::min(std::round(seconds), k_max));
}

bool EventStatus::apply(const std::string& name, const Fields& fields) {
    if (name == event::k_start) {
        apply_start(fields);
    } else if (name == event::k_progress) {
        apply_progress(fields);
    } else if (name == event::k_eval) {
        apply_eval(fields);
    } else if (name == event::k_finish) {
        apply_finish(fields);
    } else {
        return false;
    }
    return true;
}

void EventStatus::apply_start(const Fields& f) {
    m_total_steps = integer(f, field::k_epochs) * integer(f, field::k_steps_per_epoch);
    m_percent = percent_done(integer(f, field::k_resumed_from), m_total_steps);
}

void EventStatus::apply_progress(const Fields& f) {
    m_total_steps = integer(f, field::k_epochs) * integer(f, field::k_steps_per_epoch);
    m_percent = percent_done(integer(f, field::k_global_step), m_total_steps);
    if (const auto eta = number(f, field::k_eta_s)) {
        m_eta = remaining_seconds(*eta);
    }
    m_loss = number(f, field::k_loss);
    m_accuracy = number(f, field::k_accuracy);
    m_samples_per_sec = number(f, field::k_samples_per_sec);
    m_epoch = integer(f, field::k_epoch);
}

void EventStatus::apply_eval(const Fields& f) {
    m_eval_loss = number(f, field::k_loss);
    m_eval_accuracy = number(f, field::k_accuracy);
}

void EventStatus::apply_finish(const Fields& f) {
    m_finished = true;
    m_percent = 100;
    m_eta = 0;
    m_loss = number(f, field::k_loss);
    m_accuracy = number(f, field::k_accuracy);
    m_samples_per_sec = number(f, field::k_samples_per_sec);
    m_epoch = integer(f, field::k_epochs);
}

TrainerStatus EventStatus::status(std::chrono::system_clock::time_point updated) const {
    TrainerStatus s;
    s.progress_percentage = m_percent;
    s.estimated_remaining_seconds = m_eta;
    s.updated = updated;
    add(s.metrics, metric::k_loss, m_loss, 4);
    add(s.metrics, metric::k_accuracy, m_accuracy, 4);
    add(s.metrics, metric::k_samples_per_sec, m_samples_per_sec, 1);
    if (m_epoch) {
        s.metrics.push_back(StatusMetric{metric::k_epoch, std::to_string(*m_epoch)});
    }
    add(s.metrics, metric::k_eval_loss, m_eval_loss, 4);
    add(s.metrics, metric::k_eval_accuracy, m_eval_accuracy, 4);
    return s;
}

}  // namespace kftrain::trainer::trainer_status
