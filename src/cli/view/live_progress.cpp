#include "cli/view/live_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>

#include "cli/view/log_line.h"
#include "cli/view/progress.h"
#include "progress/progress_line.h"
#include "util/time_text.h"
#include "wire/progress_events.h"

namespace kftrain::cli::view {
namespace {

namespace event = wire::event;

// The live line of what the program posted to the status endpoint (trainerStatus).
constexpr const char* k_posted_line = "status";

// The trainer's event on a log line, after the timestamp `--timestamps` puts before it.
std::optional<job::Progress> event_of(const std::string& text) {
    size_t space = text.find(' ');
    if (space != std::string::npos && util::parse_timestamp(text.substr(0, space))) {
        return progress::parse_progress_line(text.substr(space + 1));
    }
    return progress::parse_progress_line(text);
}

template <typename T>
void keep(std::optional<T>& into, const std::optional<T>& from) {
    if (from) {
        into = from;
    }
}

// Take the figures an event carries into what a group's line shows.
void merge(job::Progress& into, const job::Progress& from) {
    keep(into.epoch, from.epoch);
    keep(into.epochs, from.epochs);
    keep(into.step, from.step);
    keep(into.steps_per_epoch, from.steps_per_epoch);
    keep(into.global_step, from.global_step);
    keep(into.loss, from.loss);
    keep(into.accuracy, from.accuracy);
    keep(into.samples_per_sec, from.samples_per_sec);
    keep(into.elapsed_s, from.elapsed_s);
    keep(into.eta_s, from.eta_s);
    keep(into.percent, from.percent);
    if (!from.metrics.empty()) {
        into.metrics = from.metrics;  // a report's metrics are all it measured at that point
    }
}

// An epoch summary or the finish line closes an epoch: its steps are all done.
void close_epoch(job::Progress& figures) {
    if (figures.steps_per_epoch) {
        figures.step = figures.steps_per_epoch;
    }
}

bool has_figures(const job::Progress& p) {
    return p.epoch || p.step || p.loss || p.samples_per_sec || p.percent || !p.metrics.empty();
}

}  // namespace

LiveProgress::LiveProgress(size_t prefix_width) : m_prefix_width(prefix_width) {}

LiveProgress::Group* LiveProgress::find_group(const std::string& replica) {
    const std::string key = replica_group(replica);
    for (auto& group : m_groups) {
        if (group.key == key) {
            return &group;
        }
    }
    return nullptr;
}

LiveProgress::Group& LiveProgress::group_of(const std::string& replica) {
    Group* found = find_group(replica);
    if (found == nullptr) {
        m_groups.push_back(Group{replica_group(replica), replica, {}, false, 0});
        found = &m_groups.back();
    }
    found->replica = replica;
    return *found;
}

void LiveProgress::take(const job::LogLine& line) {
    auto parsed = event_of(line.text);
    const std::string kind = parsed ? parsed->event : "";
    if (kind == event::k_progress || kind == event::k_epoch || kind == event::k_finish) {
        Group& group = group_of(line.replica);
        merge(group.figures, *parsed);
        if (kind != event::k_progress) {
            close_epoch(group.figures);
        }
        if (kind == event::k_finish) {
            if (group.figures.epochs) {
                group.figures.epoch = group.figures.epochs;
            }
            group.figures.eta_s.reset();
        }
        group.finished = kind == event::k_finish;
        if (kind != event::k_epoch) {
            return;  // the line shows it; an epoch's summary also stays in the history
        }
    } else if (!parsed && take_text(line)) {
        return;  // a bar's drawing: the line shows it
    } else if (kind == event::k_start) {
        if (Group* group = find_group(line.replica)) {
            group->replica = line.replica;
            group->figures = job::Progress{};
            group->finished = false;
            group->restarts += 1;
        }
    }
    m_scroll.push_back(format_log_line(line, false, m_prefix_width));
}

bool LiveProgress::take_text(const job::LogLine& line) {
    const std::string key = replica_group(line.replica);
    auto it = std::find_if(m_readers.begin(), m_readers.end(),
                           [&](const auto& reader) { return reader.first == key; });
    if (it == m_readers.end()) {
        m_readers.emplace_back(key, progress::ProgressReader{});
        it = std::prev(m_readers.end());
    }
    progress::ProgressReader& reader = it->second;
    reader.take_output(line.text);
    if (reader.changed() && reader.progress() && !reader.progress()->source.empty()) {
        Group& group = group_of(line.replica);
        group.figures = *reader.progress();
        group.finished = group.figures.percent && *group.figures.percent >= 100;
    }
    // A bar redrawn in place, or a Keras step line within its epoch, is shown by the live line
    // alone; the rest scrolls.
    const auto& reading = reader.line_reading();  // of the line's last drawing
    return reading &&
           (reading->format == progress::TextFormat::Tqdm ||
            (reading->format == progress::TextFormat::Keras && reading->done != reading->total));
}

void LiveProgress::take_posted(const job::Progress& posted) {
    Group& group = group_of(k_posted_line);
    group.figures = posted;
    group.figures.event = event::k_progress;
    group.finished = false;
}

std::string LiveProgress::format_group(const Group& group) const {
    std::string text;
    if (!has_figures(group.figures)) {
        text = "restarted; waiting for progress";
    } else {
        job::Progress shown = group.figures;
        shown.event = event::k_progress;
        text = format_progress(shown);
        if (group.finished) {
            text += " finished";
            if (shown.elapsed_s) {
                text += " in " + util::format_duration(*shown.elapsed_s);
            }
        }
    }
    if (group.restarts > 0) {
        text += fmt::format(" (restart {})", group.restarts);
    }
    return format_log_line({group.replica, text, false}, true, m_prefix_width);
}

std::vector<std::string> LiveProgress::block() const {
    std::vector<std::string> lines;
    for (const auto& group : m_groups) {
        lines.push_back(format_group(group));
    }
    return lines;
}

std::vector<std::string> LiveProgress::cut_block(size_t width) const {
    std::vector<std::string> lines;
    for (const auto& line : block()) {
        lines.push_back(cut_to_width(line, width));
    }
    return lines;
}

std::string LiveProgress::draw(std::vector<std::string> lines) {
    if (m_scroll.empty() && lines == m_drawn) {
        return "";
    }
    std::string out;
    if (!m_drawn.empty()) {
        out += fmt::format("\x1b[{}A", m_drawn.size());  // up to the block's first line
        if (!m_scroll.empty()) {
            out += "\r\x1b[J";  // a log line may wrap: erase the whole block at once
        }
    }
    for (const auto& line : m_scroll) {
        out += line + "\n";
    }
    for (const auto& line : lines) {
        out += "\r\x1b[K" + line + "\n";
    }
    m_scroll.clear();
    m_drawn = std::move(lines);
    return out;
}

std::string LiveProgress::render(size_t width, Clock::time_point now) {
    if (m_last_write && now - *m_last_write < k_redraw_interval) {
        return "";
    }
    std::string out = draw(cut_block(width));
    if (!out.empty()) {
        m_last_write = now;
    }
    return out;
}

std::string LiveProgress::clear() {
    if (m_drawn.empty()) {
        return "";
    }
    std::string out = fmt::format("\x1b[{}A\r\x1b[J", m_drawn.size());
    m_drawn.clear();
    m_last_write.reset();  // the block is gone: draw it again at the next look
    return out;
}

std::string LiveProgress::finish(size_t width) {
    std::string out = draw(cut_block(width));
    m_drawn.clear();  // final lines: nothing moves up into them again
    m_groups.clear();
    return out;
}

std::string replica_group(const std::string& replica) {
    size_t dash = replica.rfind('-');
    if (dash == std::string::npos || dash + 1 == replica.size()) {
        return replica;
    }
    for (size_t i = dash + 1; i < replica.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(replica[i]))) {
            return replica;
        }
    }
    return replica.substr(0, dash);
}

std::string cut_to_width(const std::string& text, size_t width) {
    std::string out;
    size_t columns = 0;
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        const bool continues = (byte & 0xC0) == 0x80;  // inside a UTF-8 character
        if (!continues) {
            if (columns == width) {
                break;
            }
            ++columns;
        }
        out += (byte < 0x20 || byte == 0x7f) ? ' ' : c;
    }
    return out;
}

}  // namespace kftrain::cli::view
