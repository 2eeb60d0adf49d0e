#include "progress/progress_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "progress/progress_line.h"
#include "util/text.h"

namespace kftrain::progress {
namespace {

// The most plain counters remembered, and metrics kept, whatever the output.
constexpr size_t k_max_counters = 8;
constexpr size_t k_max_metrics = 64;
// How many times the figures must have moved on before an ETA is given.
constexpr int k_moves_for_eta = 3;

// A bar that is not the training's: a validation, evaluation, test or prediction pass.
bool names_other_pass(const std::string& label) {
    const std::string lower = util::to_lower(label);
    for (const char* word : {"valid", "eval", "test", "predict", "sanity", "inference"}) {
        if (lower.find(word) != std::string::npos) {
            return true;
        }
    }
    return false;
}

const double* find_metric(const std::vector<std::pair<std::string, double>>& metrics,
                          std::initializer_list<const char*> names) {
    for (const char* name : names) {
        for (const auto& [have, value] : metrics) {
            if (have == name) {
                return &value;
            }
        }
    }
    return nullptr;
}

}  // namespace

void ProgressReader::take_output(std::string_view text, std::optional<double> seen_s) {
    bool changed = false;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = text.find_first_of("\r\n", start);
        const std::string_view line = text.substr(
            start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!line.empty()) {
            take(line, seen_s);
            changed = changed || m_changed;
        }
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    m_changed = changed;
}

void ProgressReader::take(std::string_view line, std::optional<double> seen_s) {
    m_changed = false;
    m_line_metrics.clear();
    m_line_reading.reset();
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '{' &&
        line.find("\"event\"") != std::string_view::npos) {
        take_json(line);
        return;
    }
    m_line_reading = read_text_line(line);
    if (m_line_reading) {
        m_line_metrics = m_line_reading->metrics;
        if (!m_json) {
            take_text(*m_line_reading, seen_s);
        }
    }
}

void ProgressReader::take_json(std::string_view line) {
    auto parsed = parse_progress_line(std::string(line));
    if (!parsed || !shows_progress(*parsed)) {
        return;
    }
    m_json = true;
    for (const auto& [name, value] : parsed->metrics) {
        if (auto number = util::parse_number(value, false)) {
            m_line_metrics.emplace_back(name, *number);
        }
    }
    m_progress = std::move(parsed);
    m_changed = true;
}

void ProgressReader::take_text(const TextReading& r, std::optional<double> seen_s) {
    bool moved = false;
    switch (r.format) {
        case TextFormat::Tqdm:
            moved = take_bar(r);
            break;
        case TextFormat::KerasEpoch:
            m_at = Position{r.epoch, r.epochs, 0, m_at.steps, false};
            if (m_keras) {
                m_source = format_source(r.format);
                moved = true;
            } else {  // no Keras line yet: a plain "Epoch 2/5", that counts once it rises
                TextReading plain = r;
                plain.format = TextFormat::Plain;
                plain.counts_epochs = true;
                plain.done = r.epoch;
                plain.total = r.epochs;
                moved = take_plain(plain);
            }
            break;
        case TextFormat::Keras:
            m_keras = true;
            m_at.step = r.done;
            m_at.steps = r.total;
            m_at.epoch_done = false;
            m_source = format_source(r.format);
            moved = true;
            break;
        case TextFormat::TrainerLog:
            take_trainer_log(r);
            moved = true;
            break;
        case TextFormat::Plain:
            moved = take_plain(r);
            break;
    }
    if (moved) {
        add_metrics(r.metrics);
        publish(r, seen_s);
    }
}

bool ProgressReader::take_bar(const TextReading& r) {
    if (names_other_pass(r.label)) {
        return false;
    }
    m_steps_per_sec = r.steps_per_sec;
    if (r.counts_epochs) {  // `for epoch in tqdm(range(N), desc="Epoch")`
        m_outer_epochs = true;
        m_at.epochs = r.total;
        m_at.epoch = std::min(*r.done + 1, *r.total);
        m_at.epoch_done = *r.done == *r.total;
        if (m_at.epoch_done) {
            m_at.step = m_at.steps;
        }
    } else if (r.epoch) {  // "Epoch 2/3: ...", Lightning's "Epoch 0: ..."
        m_epoch_bar = true;
        m_at.epoch = *r.epoch + (r.epoch_from_zero ? 1 : 0);
        m_at.epochs = r.epochs;
        m_at.step = r.done;
        m_at.steps = r.total;
        m_at.epoch_done = false;
    } else if (m_epoch_bar) {
        return false;  // a bar beside the epoch's own: another pass
    } else if (m_outer_epochs) {
        m_at.step = r.done;
        m_at.steps = r.total;
        m_at.epoch_done = false;
    } else if (*r.total >= m_run_bar_total) {  // a bar over the whole run, as the Trainer's
        m_run_bar_total = *r.total;
        m_at.epoch.reset();
        m_at.epochs.reset();
        m_at.step = r.done;
        m_at.steps = r.total;
        m_elapsed_s = r.elapsed_s;
    } else {
        return false;  // a smaller bar within the run's: an evaluation
    }
    const bool lightning = r.epoch_from_zero || find_metric(r.metrics, {"v_num"}) != nullptr;
    m_source = lightning       ? "a Lightning bar"
               : m_trainer_log ? format_source(TextFormat::TrainerLog)
                               : format_source(r.format);
    return true;
}

bool ProgressReader::take_plain(const TextReading& r) {
    Counter* counter = nullptr;
    for (Counter& c : m_counters) {
        if (c.counts_epochs == r.counts_epochs && c.total == *r.total) {
            counter = &c;
        }
    }
    if (counter == nullptr) {
        if (m_counters.size() == k_max_counters) {
            m_counters.erase(m_counters.begin());
        }
        m_counters.push_back(Counter{r.counts_epochs, *r.total, *r.done, false});
        return false;
    }
    const bool rising = *r.done > counter->done ||
                        (!r.counts_epochs && r.epoch && m_at.epoch && *r.epoch > *m_at.epoch);
    counter->rose = counter->rose || rising;
    counter->done = *r.done;
    if (!counter->rose) {
        return false;
    }
    if (r.counts_epochs) {
        // "epoch 2/10" alone starts the epoch; with its figures beside it, it sums it up.
        m_at.epoch = r.done;
        m_at.epochs = r.total;
        m_at.epoch_done = !r.metrics.empty();
        m_at.step.reset();
    } else {
        if (r.epoch) {
            m_at.epoch = r.epoch;
            m_at.epochs = r.epochs;
        }
        m_at.step = r.done;
        m_at.steps = r.total;
        m_at.epoch_done = false;
    }
    m_source = format_source(r.format);
    return true;
}

void ProgressReader::take_trainer_log(const TextReading& r) {
    m_trainer_log = true;
    m_run_end = m_run_end || r.run_end;
    if (m_source.empty() || m_source == format_source(TextFormat::Tqdm)) {
        m_source = format_source(r.format);
    }
    if (!m_at.steps && r.fraction_epochs) {  // no bar: the epoch alone
        m_at.epoch = static_cast<long long>(std::floor(*r.fraction_epochs)) + 1;
    }
}

void ProgressReader::add_metrics(const std::vector<std::pair<std::string, double>>& metrics) {
    for (const auto& [name, value] : metrics) {
        auto it = std::find_if(m_metrics.begin(), m_metrics.end(),
                               [&](const auto& kept) { return kept.first == name; });
        if (it != m_metrics.end()) {
            it->second = value;
        } else if (m_metrics.size() < k_max_metrics && name != "v_num") {
            m_metrics.emplace_back(name, value);
        }
    }
}

std::optional<double> ProgressReader::fraction() const {
    const Position& at = m_at;
    const double in_epoch = at.epoch_done ? 1.0
                            : at.step && at.steps
                                ? static_cast<double>(*at.step) / static_cast<double>(*at.steps)
                                : 0.0;
    if (at.epoch && at.epochs) {
        return std::clamp(
            (static_cast<double>(*at.epoch) - 1 + in_epoch) / static_cast<double>(*at.epochs), 0.0,
            1.0);
    }
    if (!at.epoch && at.step && at.steps) {
        return in_epoch;
    }
    return std::nullopt;  // an epoch of an unknown number: no percentage
}

std::optional<double> ProgressReader::eta(const TextReading& r, double done,
                                          std::optional<double> seen_s) {
    if (done > m_last_done) {
        m_moves += m_last_done >= 0 ? 1 : 0;
        m_last_done = done;
    }
    if (seen_s && (!m_first_seen || done < m_first_seen->second)) {
        m_first_seen = std::make_pair(*seen_s, done);  // the first, or a new run after a restart
    }
    if (done >= 1) {
        return std::nullopt;  // nothing is left
    }
    if (m_moves < k_moves_for_eta) {
        return std::nullopt;
    }
    // What the bar says of its own time left, where its bar is the whole run's or the epochs'
    // number is known; else a rate of one's own over what was seen.
    if (r.format == TextFormat::Tqdm && r.remaining_s && !m_at.epoch) {
        return r.remaining_s;
    }
    if (r.format == TextFormat::Tqdm && r.remaining_s && r.elapsed_s && m_at.epoch && m_at.epochs) {
        return *r.remaining_s +
               static_cast<double>(*m_at.epochs - *m_at.epoch) * (*r.elapsed_s + *r.remaining_s);
    }
    if (seen_s && m_first_seen && done > m_first_seen->second && *seen_s > m_first_seen->first) {
        const double rate = (done - m_first_seen->second) / (*seen_s - m_first_seen->first);
        return (1 - done) / rate;
    }
    return std::nullopt;
}

void ProgressReader::publish(const TextReading& r, std::optional<double> seen_s) {
    Progress p;
    p.event = "progress";
    p.source = m_source;
    p.epoch = m_at.epoch;
    p.epochs = m_at.epochs;
    p.step = m_at.epoch_done ? m_at.steps : m_at.step;
    p.steps_per_epoch = m_at.steps;
    if (auto done = fraction()) {
        // Down to a tenth: 199999 of 200000 steps is 99.9%, not yet 100%.
        p.percent = m_run_end ? 100.0 : std::floor(*done * 1000 + 1e-6) / 10;
        p.eta_s = eta(r, m_run_end ? 1.0 : *done, seen_s);
    }
    p.steps_per_sec = m_steps_per_sec;
    p.elapsed_s = m_at.epoch ? std::nullopt : m_elapsed_s;
    if (const double* loss = find_metric(m_metrics, {"loss", "train_loss"})) {
        p.loss = *loss;
    }
    if (const double* accuracy = find_metric(m_metrics, {"accuracy", "acc", "train_accuracy"});
        accuracy && *accuracy >= 0 && *accuracy <= 1) {
        p.accuracy = *accuracy;
    }
    for (const auto& [name, value] : m_metrics) {
        p.metrics.emplace_back(name, fmt::format("{:g}", value));
    }
    m_progress = std::move(p);
    m_changed = true;
}

}  // namespace kftrain::progress
