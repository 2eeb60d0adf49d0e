#include "progress/text_line.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "progress/text_scan.h"
#include "progress/trainer_status.h"
#include "util/text.h"

// Each shape is read by a scan, not a regex: a line may be any bytes a program printed.
namespace kftrain::progress {
namespace {

using namespace text_scan;

using Text = std::string_view;

// "Epoch 2/3", "epoch [2/10]", "Epoch 2 of 3" at text[i] (after the word): the epoch and
// the number of epochs, or the epoch alone ("Epoch 0"); i is moved past what was read.
bool take_fraction(Text text, size_t& i, std::optional<long long>& n,
                   std::optional<long long>& of) {
    size_t j = i;
    for (int skipped = 0;
         j < text.size() && skipped < 3 && std::string_view(" :#[(").find(text[j]) != Text::npos;
         ++skipped) {
        ++j;
    }
    if (j > 0 && is_digit(text[j - 1])) {
        return false;
    }
    auto first = take_count(text, j);
    if (!first) {
        return false;
    }
    size_t k = j;
    std::optional<long long> second;
    if (k < text.size() && text[k] == '/') {
        ++k;
        second = take_count(text, k);
    } else if (starts_with(text.substr(k), " of ")) {
        k += 4;
        second = take_count(text, k);
    }
    if (second) {
        // "2/3/4" is a date or a path, "2/3.5" a number: neither is a counter.
        if (k < text.size() && (text[k] == '/' || text[k] == '.' || is_digit(text[k]))) {
            return false;
        }
        if (*second == 0 || *first > *second) {
            return false;
        }
        j = k;
        if (j < text.size() && (text[j] == ']' || text[j] == ')')) {
            ++j;
        }
    } else if (j < text.size() && (text[j] == '/' || text[j] == '.' || is_word(text[j]))) {
        return false;
    }
    n = first;
    of = second;
    i = j;
    return true;
}

// The epoch a bar's description names: "Epoch 2/3", "epoch 2 of 3", Lightning's "Epoch 0".
void read_label_epoch(TextReading& r) {
    const Text label = r.label;
    for (size_t i = 0; i + 5 <= label.size(); ++i) {
        if ((i > 0 && is_word(label[i - 1])) || !starts_with_nocase(label.substr(i), "epoch")) {
            continue;
        }
        size_t j = i + 5;
        if (j < label.size() && (label[j] == 's' || label[j] == 'S')) {
            ++j;
        }
        std::optional<long long> n;
        std::optional<long long> of;
        if (take_fraction(label, j, n, of)) {
            r.epoch = n;
            r.epochs = of;
            r.epoch_from_zero = !of;
        } else if (trimmed(label.substr(j)).empty()) {
            r.counts_epochs = true;  // the outer bar of `for epoch in tqdm(range(N))`
        }
        return;
    }
}

// "name=value" items of a bar's postfix, "name: value" of a Keras line: numbers only.
void add_metric(TextReading& r, Text name, Text value) {
    name = trimmed(name);
    value = trimmed(value);
    if (name.empty() || name.size() > 64 ||
        !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
        return;
    }
    for (char c : name) {
        if (!is_word(c) && c != '.' && c != '-' && c != '/') {
            return;
        }
    }
    size_t i = 0;
    auto number = take_number(value, i);
    if (number && (i == value.size() || value.substr(i) == "%")) {
        r.metrics.emplace_back(std::string(name), *number);
    }
}

// tqdm's rate: "89.50it/s", "1.20kit/s", "2.31s/it", "?it/s".
std::optional<double> parse_rate(Text text) {
    text = trimmed(text);
    size_t i = 0;
    auto number = take_number(text, i);
    if (!number || *number <= 0) {
        return std::nullopt;
    }
    Text unit = text.substr(i);
    double scale = 1;
    if (!unit.empty() && (unit[0] == 'k' || unit[0] == 'M' || unit[0] == 'G') && unit.size() > 1 &&
        unit[1] != '/') {
        scale = unit[0] == 'k' ? 1e3 : unit[0] == 'M' ? 1e6 : 1e9;
    }
    if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "/s") {
        return *number * scale;
    }
    if (starts_with(unit, "s/")) {
        return 1 / *number;
    }
    return std::nullopt;
}

// "Epoch 2/3:  45%|████▌     | 90/200 [00:01<00:01, 89.50it/s, loss=0.123]"
std::optional<TextReading> read_tqdm(Text line) {
    const size_t bar = line.find("%|");
    if (bar == Text::npos) {
        return std::nullopt;
    }
    size_t p = bar;
    while (p > 0 && is_digit(line[p - 1]) && bar - p < 3) {
        --p;
    }
    const size_t bar_end = line.find('|', bar + 2);
    if (p == bar || bar_end == Text::npos) {
        return std::nullopt;
    }
    TextReading r;
    r.format = TextFormat::Tqdm;
    Text label = trimmed(line.substr(0, p));
    if (!label.empty() && label.back() == ':') {
        label.remove_suffix(1);
    }
    r.label = std::string(trimmed(label));
    size_t i = bar_end + 1;
    while (i < line.size() && line[i] == ' ') {
        ++i;
    }
    r.done = take_count(line, i);
    if (!r.done || i >= line.size() || line[i] != '/') {
        return std::nullopt;
    }
    ++i;
    r.total = take_count(line, i);
    const size_t open = line.find('[', i);
    const size_t close = line.rfind(']');
    if (!r.total || *r.total == 0 || *r.done > *r.total || open == Text::npos ||
        close == Text::npos || close < open || !trimmed(line.substr(i, open - i)).empty()) {
        return std::nullopt;
    }
    const std::string inside(line.substr(open + 1, close - open - 1));
    const auto items = util::split(inside, ',');
    if (!items.empty()) {
        const size_t less = items[0].find('<');
        r.elapsed_s = parse_clock(Text(items[0]).substr(0, less));
        if (less != std::string::npos) {
            r.remaining_s = parse_clock(Text(items[0]).substr(less + 1));
        }
    }
    if (items.size() > 1) {
        r.steps_per_sec = parse_rate(items[1]);
    }
    for (size_t k = 2; k < items.size(); ++k) {
        const size_t eq = items[k].find('=');
        if (eq != std::string::npos) {
            add_metric(r, Text(items[k]).substr(0, eq), Text(items[k]).substr(eq + 1));
        }
    }
    read_label_epoch(r);
    return r;
}

// The run of a Keras 3 bar's box characters (U+2501, U+2500), as UTF-8.
size_t skip_box_bar(Text line, size_t i) {
    while (i + 2 < line.size() && line[i] == '\xe2' && line[i + 1] == '\x94' &&
           (line[i + 2] == '\x81' || line[i + 2] == '\x80')) {
        i += 3;
    }
    return i;
}

// What follows a Keras line's bar: " - ETA: 12s - loss: 0.4321", "5s 10ms/step - loss: ...";
// whether it gave a time, or nullopt when a part is none of those.
std::optional<bool> read_keras_figures(TextReading& r, Text rest) {
    if (starts_with(rest, "- ")) {
        rest = rest.substr(1);  // verbose=2: no bar, "469/469 - 5s - loss: ..."
    }
    bool timed = false;
    for (size_t start = 0; start <= rest.size();) {
        size_t dash = rest.find(" - ", start);
        Text chunk = trimmed(rest.substr(start, dash == Text::npos ? Text::npos : dash - start));
        start = dash == Text::npos ? rest.size() + 1 : dash + 3;
        if (chunk.empty()) {
            continue;
        }
        if (starts_with(chunk, "ETA: ")) {
            r.remaining_s = parse_clock(chunk.substr(5));
            timed = true;
        } else if (const size_t colon = chunk.find(": "); colon != Text::npos) {
            add_metric(r, chunk.substr(0, colon), chunk.substr(colon + 2));
        } else if (auto seconds = parse_clock(chunk.substr(0, chunk.find(' ')))) {
            // "5s 10ms/step": the epoch's time at its end, the time left before (Keras 3).
            (*r.done == *r.total ? r.elapsed_s : r.remaining_s) = seconds;
            timed = true;
        } else if (chunk.find("/step") == Text::npos && chunk.find("/epoch") == Text::npos) {
            return std::nullopt;
        }
    }
    return timed;
}

// "Epoch 2/5" alone, then "  50/469 [==>.....] - ETA: 12s - loss: 0.4321", the closing
// "469/469 [======] - 5s 10ms/step - loss: ...", Keras 3's "469/469 ━━━━ 5s 10ms/step - ..."
// and verbose=2's "469/469 - 5s - loss: ...".
std::optional<TextReading> read_keras(Text line) {
    TextReading r;
    line = trimmed(line);
    if (starts_with(line, "Epoch ")) {
        size_t i = 6;
        if (take_fraction(line, i, r.epoch, r.epochs) && r.epochs && i == line.size()) {
            r.format = TextFormat::KerasEpoch;
            return r;
        }
        return std::nullopt;
    }
    r.format = TextFormat::Keras;
    size_t i = 0;
    r.done = take_count(line, i);
    if (!r.done || i >= line.size() || line[i] != '/') {
        return std::nullopt;
    }
    ++i;
    r.total = take_count(line, i);
    if (!r.total || *r.total == 0 || *r.done > *r.total || i >= line.size() || line[i] != ' ') {
        return std::nullopt;
    }
    while (i < line.size() && line[i] == ' ') {
        ++i;
    }
    bool shaped = false;
    if (i < line.size() && line[i] == '[') {
        const size_t close = line.find(']', i);
        if (close == Text::npos ||
            line.substr(i + 1, close - i - 1).find_first_not_of("=>.") != Text::npos) {
            return std::nullopt;
        }
        i = close + 1;
        shaped = true;
    } else if (size_t end = skip_box_bar(line, i); end > i) {
        i = end;
        shaped = true;
    }
    const std::optional<bool> timed = read_keras_figures(r, line.substr(i));
    if (!timed) {
        return std::nullopt;
    }
    if (!shaped && !(*timed && !r.metrics.empty())) {
        return std::nullopt;  // "3/4 shards" is not a Keras line
    }
    return r;
}

// "{'loss': 0.6931, 'grad_norm': 1.2, 'learning_rate': 4.9e-05, 'epoch': 0.5}"
std::optional<TextReading> read_trainer_log(Text line) {
    line = trimmed(line);
    if (line.size() < 4 || line.front() != '{' || line[1] != '\'' || line.back() != '}') {
        return std::nullopt;
    }
    TextReading r;
    r.format = TextFormat::TrainerLog;
    bool has_epoch = false;
    bool closed = false;
    size_t i = 1;
    while (!closed && i < line.size() && line[i] == '\'') {
        const size_t name_end = line.find('\'', i + 1);
        if (name_end == Text::npos || line.substr(name_end + 1, 2) != ": ") {
            return std::nullopt;
        }
        const Text name = line.substr(i + 1, name_end - i - 1);
        size_t j = name_end + 3;
        const size_t value_end = line.find_first_of(",}", j);
        if (value_end == Text::npos) {
            return std::nullopt;
        }
        size_t used = 0;
        const Text value = trimmed(line.substr(j, value_end - j));
        if (auto number = take_number(value, used); number && used == value.size()) {
            if (name == "epoch") {
                if (*number < 0) {
                    return std::nullopt;  // no epoch the Trainer counts
                }
                r.fraction_epochs = *number;
                has_epoch = true;
            } else {
                r.run_end = r.run_end || name == "train_runtime";
                add_metric(r, name, value);
            }
        }
        closed = line[value_end] == '}';
        i = value_end + 1;
        while (i < line.size() && line[i] == ' ') {
            ++i;
        }
    }
    if (!closed || i != line.size() || !has_epoch) {
        return std::nullopt;
    }
    return r;
}

// The "name: value" and "name=value" pairs of a plain line, beside its counters.
void read_plain_metrics(TextReading& r, Text line) {
    for (size_t i = 0; i < line.size(); ++i) {
        const bool colon = line[i] == ':' && i + 1 < line.size() && line[i + 1] == ' ';
        if (!colon && line[i] != '=') {
            continue;
        }
        size_t start = i;
        while (start > 0 && (is_word(line[start - 1]) || line[start - 1] == '-' ||
                             line[start - 1] == '/' || line[start - 1] == '.')) {
            --start;
        }
        const Text name = line.substr(start, i - start);
        size_t j = i + (colon ? 2 : 1);
        while (j < line.size() && line[j] == ' ') {
            ++j;
        }
        size_t end = j;
        while (end < line.size() && line[end] != ' ' && line[end] != ',' && line[end] != ';' &&
               line[end] != '|' && line[end] != ')' && line[end] != ']') {
            ++end;
        }
        const std::string lower = util::to_lower(std::string(name));
        if (lower != "epoch" && lower != "step" && lower != "iter" && lower != "eta") {
            add_metric(r, name, line.substr(j, end - j));
        }
    }
}

// "loss 0.0291": a metric's common name, a space, its number.
void read_named_figures(TextReading& r, Text line) {
    for (Text name : {"loss", "acc", "accuracy", "lr", "val_loss", "val_acc", "ppl"}) {
        for (size_t at = line.find(name); at != Text::npos; at = line.find(name, at + 1)) {
            const size_t after = at + name.size();
            if ((at > 0 && is_word(line[at - 1])) || after + 1 >= line.size() ||
                line[after] != ' ' || !(is_digit(line[after + 1]) || line[after + 1] == '-')) {
                continue;
            }
            size_t end = after + 1;
            while (end < line.size() && line[end] != ' ' && line[end] != ',') {
                ++end;
            }
            add_metric(r, name, line.substr(after + 1, end - after - 1));
        }
    }
}

// "epoch 2/10", "Epoch [2/10]", "step 300/1000", "iter 300/1000", "[300/1000]".
std::optional<TextReading> read_plain(Text line) {
    TextReading r;
    r.format = TextFormat::Plain;
    for (size_t i = 0; i < line.size(); ++i) {
        if (i > 0 && is_word(line[i - 1])) {
            continue;
        }
        Text rest = line.substr(i);
        size_t word = 0;
        bool epoch = false;
        for (Text keyword : {"epoch", "iteration", "iter", "step", "batch"}) {
            if (starts_with_nocase(rest, keyword)) {
                word = keyword.size();
                epoch = keyword == "epoch";
                break;
            }
        }
        if (word == 0 && line[i] != '[') {
            continue;
        }
        size_t j = i + word;
        std::optional<long long> n;
        std::optional<long long> of;
        if (!take_fraction(line, j, n, of) || !of) {
            continue;
        }
        if (epoch && !r.epoch) {
            r.epoch = n;
            r.epochs = of;
        } else if (!epoch && !r.done) {
            r.done = n;
            r.total = of;
        }
        i = j - 1;
    }
    if (!r.epoch && !r.done) {
        return std::nullopt;
    }
    r.counts_epochs = !r.done;
    if (r.counts_epochs) {
        r.done = r.epoch;
        r.total = r.epochs;
    }
    read_plain_metrics(r, line);
    read_named_figures(r, line);
    return r;
}

}  // namespace

std::optional<TextReading> read_text_line(std::string_view line) {
    if (line.size() > k_max_text_line ||
        (line.find('/') == Text::npos && line.find('{') == Text::npos &&
         line.find(" of ") == Text::npos)) {
        return std::nullopt;
    }
    if (auto bar = read_tqdm(line)) {
        return bar;
    }
    if (auto keras = read_keras(line)) {
        return keras;
    }
    if (auto log = read_trainer_log(line)) {
        return log;
    }
    return read_plain(line);
}

const char* format_source(TextFormat format) {
    switch (format) {
        case TextFormat::Tqdm:
            return "a tqdm bar";
        case TextFormat::KerasEpoch:
        case TextFormat::Keras:
            return "Keras output";
        case TextFormat::TrainerLog:
            return "Hugging Face Trainer logs";
        case TextFormat::Plain:
            return "plain progress lines";
    }
    return "text";
}

bool is_known_source(std::string_view text) {
    for (TextFormat format :
         {TextFormat::Tqdm, TextFormat::Keras, TextFormat::TrainerLog, TextFormat::Plain}) {
        if (text == format_source(format)) {
            return true;
        }
    }
    return text == k_lightning_source || text == k_trainer_status_source;
}

}  // namespace kftrain::progress
