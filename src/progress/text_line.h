#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The progress that programs already print, read from one line of their output without any
// change to them: tqdm bars (and the Hugging Face Trainer's and Lightning's, which are tqdm's),
// the Trainer's log dicts, Keras's model.fit lines and plain loops' "epoch 2/10" lines
// (docs/progress.md has an example of each). One drawing of a bar redrawn with carriage
// returns is one line. Pure: a line in, what it shows out; progress_reader.h puts lines
// together (an epoch marker before its steps, a counter seen rising, a rate over updates).
namespace kftrain::progress {

// The shapes a line of text progress comes in.
enum class TextFormat {
    Tqdm,  // "Epoch 2/3:  45%|████▌     | 90/200 [00:01<00:01, 89.50it/s, loss=0.123]"
    KerasEpoch,  // "Epoch 2/5", alone on its line, before the epoch's step lines
    Keras,       // "  50/469 [==>......] - ETA: 12s - loss: 0.4321 - accuracy: 0.8765"
    TrainerLog,  // "{'loss': 0.6931, 'grad_norm': 1.2, 'learning_rate': 4.9e-05, 'epoch': 0.5}"
    Plain,       // "epoch 2/10 step 300/1000 loss: 0.0291", "Epoch [2/10]", "[300/1000]"
};

// What one line of text progress shows. Counts are as printed: an epoch from 1, except a
// Lightning bar's ("Epoch 0:"), which epoch_from_zero marks.
struct TextReading {
    TextFormat format = TextFormat::Plain;
    std::string label;               // a bar's description ("Epoch 2/3", "Validation", "")
    std::optional<long long> done;   // the counter: steps (or epochs) done
    std::optional<long long> total;  // out of
    bool counts_epochs = false;      // Plain: the counter is "epoch i/N" alone
    std::optional<long long> epoch;  // "Epoch 2/3" in a bar's description or a plain line
    std::optional<long long> epochs;
    bool epoch_from_zero = false;           // Lightning's "Epoch 0:" (no total printed)
    std::optional<double> elapsed_s;        // tqdm's elapsed; a closing Keras line's time
    std::optional<double> remaining_s;      // tqdm's remaining; Keras's ETA
    std::optional<double> steps_per_sec;    // tqdm's rate (it/s, or s/it inverted)
    std::optional<double> fraction_epochs;  // the Trainer's 'epoch': 0.5
    bool run_end = false;                   // the Trainer's closing dict (train_runtime)
    std::vector<std::pair<std::string, double>> metrics;  // in the order printed
};

// The longest line read as text progress: a bar or a log line is short; anything longer is
// output of another kind, and is not scanned.
inline constexpr size_t k_max_text_line = 4096;

// Read one line (no '\r' or '\n' in it) as text progress; nullopt when it is none of the
// shapes above. Plain lines are returned for any counter; whether they are progress is for the
// reader to decide (a counter must be seen rising).
std::optional<TextReading> read_text_line(std::string_view line);

// The name of a format as status says where a figure came from: "a tqdm bar".
const char* format_source(TextFormat format);

// Where figures come from when the bar is Lightning's (a tqdm bar with its epoch from 0).
inline constexpr char k_lightning_source[] = "a Lightning bar";

// Return whether text names where figures can come from (format_source's names, Lightning's,
// trainerStatus): a kept source is read back only then, so a program's own line cannot put
// text of its choosing there.
bool is_known_source(std::string_view text);

}  // namespace kftrain::progress
