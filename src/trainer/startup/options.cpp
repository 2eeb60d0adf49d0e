#include "trainer/startup/options.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "trainer/startup/flag_values.h"
#include "trainer/version.h"

namespace kftrain::trainer {
namespace {

// Check a flag's text and return the value to store; errors name the flag and value.
template <typename T>
using Convert = std::function<util::Result<T>(const std::string& flag, const std::string& raw)>;

// One flag (or, without a leading "--", a positional argument) of a command: everything
// about it is written here once and drives both the parsing and the help.
template <typename Opts>
struct Flag {
    std::string name;
    std::string help;
    // Check the text given for the flag and store its value into the options.
    std::function<util::Status(const std::string& flag, const std::string& raw, Opts&)> store;
    bool required = false;
};

// One command: its help header and flags, and how CLI11 treats repeats and extras.
template <typename Opts>
struct CommandSpec {
    std::string description;
    std::string name;
    std::vector<Flag<Opts>> flags;
    // train: a repeated flag keeps its last value and unknown arguments are named here;
    // make-dataset: CLI11's defaults (a repeat or an extra argument is CLI11's error).
    bool lenient = false;
};

// Return a store that converts the text and writes the value into field.
template <typename Opts, typename T, typename V>
auto into(T Opts::*field, Convert<V> convert) {
    return
        [field, convert](const std::string& flag, const std::string& raw, Opts& o) -> util::Status {
            auto value = convert(flag, raw);
            if (!value.ok()) {
                return util::error(value.error());
            }
            o.*field = static_cast<T>(*value);
            return util::ok_status();
        };
}

Convert<int64_t> integer(int64_t min) {
    return
        [min](const std::string& flag, const std::string& raw) { return flag_int(flag, raw, min); };
}

Convert<int64_t> integer_in(int64_t min, int64_t max) {
    return [min, max](const std::string& flag, const std::string& raw) {
        return flag_int(flag, raw, min, max);
    };
}

Convert<double> number(double min, bool exclusive, double max = 1e30) {
    return [=](const std::string& flag, const std::string& raw) {
        return flag_double(flag, raw, min, exclusive, max);
    };
}

Convert<double> auto_or_positive(double min, double max) {
    return [min, max](const std::string& flag, const std::string& raw) {
        return flag_auto_or_positive(flag, raw, min, max);
    };
}

Convert<std::string> one_of(std::vector<std::string> choices) {
    return [choices](const std::string& flag, const std::string& raw) {
        return flag_choice(flag, raw, choices);
    };
}

Convert<bool> boolean() {
    return [](const std::string& flag, const std::string& raw) { return flag_bool(flag, raw); };
}

Convert<std::string> text() {
    return
        [](const std::string&, const std::string& raw) { return util::Result<std::string>(raw); };
}

// The flags of what to train and how: data, model, optimizer and learning rate schedule.
std::vector<Flag<TrainOptions>> training_flags() {
    using O = TrainOptions;
    return {
        {"--dataset", "mnist|cifar10|synthetic (default synthetic)",
         into(&O::dataset, one_of({"mnist", "cifar10", "synthetic"}))},
        {"--data-dir", "Directory holding the data set files", into(&O::data_dir, text())},
        {"--model", "mnist-cnn|mlp|resnet18 (default mnist-cnn)",
         into(&O::model, one_of({"mnist-cnn", "mlp", "resnet18"}))},
        {"--epochs", "Epochs to train (default 1)", into(&O::epochs, integer(1))},
        {"--batch-size", "Samples per step per replica (default 64)",
         into(&O::batch_size, integer(1))},
        {"--lr", "Learning rate (default 0.01)", into(&O::lr, number(0, true))},
        {"--optimizer", "sgd|adam (default sgd)", into(&O::optimizer, one_of({"sgd", "adam"}))},
        {"--momentum", "SGD momentum (default 0.9)",
         into(&O::momentum, number(0, false, 0.999999))},
        {"--weight-decay", "L2 weight decay (default 0)", into(&O::weight_decay, number(0, false))},
        {"--scale-lr", "true|false: multiply the LR by the world size (default false)",
         into(&O::scale_lr, boolean())},
        {"--warmup-epochs", "Epochs of linear LR warmup (default 0)",
         into(&O::warmup_epochs, integer(0))},
        {"--lr-step", "Epochs between LR decays, 0 = none (default 0)",
         into(&O::lr_step, integer(0))},
        {"--lr-gamma", "LR decay factor (default 0.1)", into(&O::lr_gamma, number(0, true, 1))},
        {"--seed", "Random seed (default 42)", into(&O::seed, integer(0))},
    };
}

// The flags of checkpoints, of the divergence guard and of what the run reports.
std::vector<Flag<TrainOptions>> reporting_flags() {
    using O = TrainOptions;
    return {
        {"--checkpoint-dir", "Directory for checkpoints (none by default)",
         into(&O::checkpoint_dir, text())},
        {"--checkpoint-every", "Steps between checkpoints, 0 = epoch ends only (default 0)",
         into(&O::checkpoint_every, integer(0))},
        {"--keep-checkpoints", "Checkpoints to keep (default 3)",
         into(&O::keep_checkpoints, integer(1))},
        {"--nan-patience",
         "Consecutive steps with a NaN or infinite loss before the run stops with an error "
         "(default 3)",
         into(&O::nan_patience, integer(1))},
        {"--log-format", "text|json (default text)",
         into(&O::log_format, one_of({"text", "json"}))},
        {"--log-every", "Steps between progress lines (default 50)",
         into(&O::log_every, integer(1))},
        {"--metric-lines",
         "true|false: print name=value lines at each evaluation, for Katib's StdOut "
         "metrics collector (default false)",
         into(&O::metric_lines, boolean())},
        {"--metrics-port",
         "Serve Prometheus metrics at http://<pod>:PORT/metrics on every rank, 0 = off "
         "(default 0)",
         into(&O::metrics_port, integer_in(0, 65535))},
    };
}

// The flags of where and how the ranks compute and communicate, and of --benchmark.
std::vector<Flag<TrainOptions>> runtime_flags() {
    using O = TrainOptions;
    return {
        {"--backend", "auto|gloo|nccl (default auto)",
         into(&O::backend, one_of({"auto", "gloo", "nccl"}))},
        {"--grad-compression",
         "none|fp16|bf16: all-reduce gradients cast to half precision and divided by the "
         "world size first, as DDP's fp16/bf16 compression hooks do: half the bytes, some "
         "precision and CPU time lost; worth it where the network is the bottleneck "
         "(default none)",
         into(&O::grad_compression, one_of({"none", "fp16", "bf16"}))},
        {"--bucket-mb",
         "auto|MiB: capacity of the gradient buckets all-reduced during backward (the first "
         "is at most 1 MiB); auto times two all-reduces at start and takes the smallest "
         "bucket whose fixed cost is a tenth of its transfer time, 0.25 to 25 MiB; DDP's "
         "bucket_cap_mb is 25 (default auto)",
         into(&O::bucket_mb, auto_or_positive(0.001, 1024))},
        {"--device",
         "auto|cpu|cuda: where the model and data live (default auto: CUDA device "
         "LOCAL_RANK % devices when libtorch sees one, else cpu)",
         into(&O::device, one_of({"auto", "cpu", "cuda"}))},
        {"--memory-format",
         "auto|channels-last|contiguous: how convolution weights and images are laid out "
         "in memory (default auto: channels-last for mnist-cnn and resnet18 on the CPU, "
         "where oneDNN's convolutions run on it without reordering; contiguous, PyTorch's "
         "default, otherwise)",
         into(&O::memory_format, one_of({"auto", "channels-last", "contiguous"}))},
        {"--timeout", "Seconds to wait for peers (default 300)", into(&O::timeout_s, integer(1))},
        {"--threads", "Intra-op threads, 0 = CPU quota / local processes (default 0)",
         into(&O::threads, integer(0))},
        {"--samples", "Training samples to use, 0 = all (synthetic: its size)",
         into(&O::samples, integer(0))},
        {"--benchmark",
         "Measure at least this many steps (and 1.5 s of them) and write a profile "
         "instead of training",
         into(&O::benchmark_steps, integer(0))},
        {"--profile-out", "File for the --benchmark profile (JSON)", into(&O::profile_out, text())},
    };
}

CommandSpec<TrainOptions> train_command() {
    std::vector<Flag<TrainOptions>> flags;
    for (const auto& group : {training_flags(), reporting_flags(), runtime_flags()}) {
        flags.insert(flags.end(), group.begin(), group.end());
    }
    return {"kftrain-trainer: data-parallel training with libtorch", "kftrain-trainer",
            std::move(flags), true};
}

CommandSpec<MakeDatasetOptions> make_dataset_command() {
    using O = MakeDatasetOptions;
    return {
        "Write a learnable synthetic data set in a standard format",
        "kftrain-trainer make-dataset",
        {
            {"kind", "mnist", into(&O::kind, one_of({"mnist"})), true},
            {"--out", "Output directory", into(&O::out, text()), true},
            {"--samples", "Training samples (default 1000)", into(&O::samples, integer(1))},
            {"--seed", "Random seed (default 42)", into(&O::seed, integer(0))},
        },
        false,
    };
}

util::Status check_combinations(const TrainOptions& o) {
    if ((o.dataset == "mnist" || o.dataset == "cifar10") && o.data_dir.empty()) {
        return util::error(
            fmt::format("--data-dir: required for --dataset {} (got \"\")", o.dataset));
    }
    if (!o.profile_out.empty() && o.benchmark_steps == 0) {
        return util::error(
            fmt::format("--profile-out: needs --benchmark STEPS (got {})", o.profile_out));
    }
    return util::ok_status();
}

// Parse with CLI11 into raw strings; return whether help was asked for, or the error.
util::Result<bool> parse_raw(CLI::App& app, std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
    } catch (const CLI::CallForHelp&) {
        return true;
    } catch (const CLI::ArgumentMismatch& e) {
        const std::string what = e.what();
        const auto flag = what.substr(0, what.find(':'));
        return util::error(fmt::format("{}: needs a value (got nothing)", flag));
    } catch (const CLI::ParseError& e) {
        return util::error(e.what());
    }
    if (!app.remaining().empty()) {
        const auto extra = app.remaining().front();
        const bool flag = extra.rfind("-", 0) == 0;
        return util::error(fmt::format("{}: {} (got {})", extra,
                                       flag ? "unknown option" : "unexpected argument", extra));
    }
    return false;
}

// Parse args as the command's flags into options, in the order of the table; return the
// help text instead when help was asked for.
template <typename Opts>
util::Result<std::optional<std::string>> parse_flags(const CommandSpec<Opts>& command,
                                                     const std::vector<std::string>& args,
                                                     Opts& options) {
    CLI::App app{command.description, command.name};
    if (command.lenient) {
        app.allow_extras();
    }
    std::map<std::string, std::string> raw;
    std::vector<CLI::Option*> given;
    for (const auto& f : command.flags) {
        auto* option = app.add_option(f.name, raw[f.name], f.help);
        if (f.required) {
            option->required();
        }
        if (command.lenient) {
            // A later flag wins.
            option->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
        }
        given.push_back(option);
    }
    auto help = parse_raw(app, args);
    if (!help.ok()) {
        return util::error(help.error());
    }
    if (*help) {
        return std::optional<std::string>(app.help());
    }
    for (std::size_t i = 0; i < command.flags.size(); ++i) {
        const auto& f = command.flags[i];
        if (given[i]->count() == 0) {
            continue;
        }
        if (auto stored = f.store(f.name, raw[f.name], options); !stored.ok()) {
            return util::error(stored.error());
        }
    }
    return std::optional<std::string>();
}

util::Result<Invocation> parse_train(const std::vector<std::string>& args) {
    Invocation out;
    auto parsed = parse_flags(train_command(), args, out.train);
    if (!parsed.ok()) {
        return util::error(parsed.error());
    }
    if (*parsed) {
        out.command = Command::help;
        out.text = **parsed;
        return out;
    }
    if (auto ok = check_combinations(out.train); !ok.ok()) {
        return util::error(ok.error());
    }
    return out;
}

util::Result<Invocation> parse_make_dataset(const std::vector<std::string>& args) {
    Invocation out;
    out.command = Command::make_dataset;
    auto parsed = parse_flags(make_dataset_command(), args, out.make_dataset);
    if (!parsed.ok()) {
        return util::error(parsed.error());
    }
    if (*parsed) {
        out.command = Command::help;
        out.text = **parsed;
    }
    return out;
}

}  // namespace

util::Result<Invocation> parse_command_line(const std::vector<std::string>& args) {
    if (!args.empty() && args.front() == "--version") {
        Invocation out;
        out.command = Command::version;
        out.text = fmt::format("kftrain-trainer {}", k_trainer_version);
        return out;
    }
    if (!args.empty() && args.front() == "make-dataset") {
        return parse_make_dataset({args.begin() + 1, args.end()});
    }
    if (!args.empty() && args.front() == "train") {
        return parse_train({args.begin() + 1, args.end()});
    }
    return parse_train(args);
}

}  // namespace kftrain::trainer
