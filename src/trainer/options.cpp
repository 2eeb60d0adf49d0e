#include "trainer/options.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <map>

#include "trainer/flag_values.h"
#include "trainer/version.h"

namespace kftrain::trainer {
namespace {

// Bind one flag: its name, help and how to store its value into the options.
struct FlagSpec {
    std::string name;
    std::string help;
    std::function<util::Status(const std::string&, TrainOptions&)> apply;
};

template <typename T, typename F>
std::function<util::Status(const std::string&, TrainOptions&)> store(F convert,
                                                                     T TrainOptions::*field) {
    return [convert, field](const std::string& raw, TrainOptions& o) -> util::Status {
        auto value = convert(raw);
        if (!value.ok()) {
            return util::Error{value.error()};
        }
        o.*field = static_cast<T>(*value);
        return util::Unit{};
    };
}

auto int_flag(const std::string& name, int64_t min) {
    return [name, min](const std::string& raw) { return flag_int(name, raw, min); };
}

auto num_flag(const std::string& name, double min, bool exclusive, double max = 1e30) {
    return [=](const std::string& raw) { return flag_double(name, raw, min, exclusive, max); };
}

auto choice_flag(const std::string& name, std::vector<std::string> choices) {
    return [name, choices](const std::string& raw) { return flag_choice(name, raw, choices); };
}

auto text_flag() {
    return [](const std::string& raw) { return util::Result<std::string>(raw); };
}

std::vector<FlagSpec> train_flags() {
    using O = TrainOptions;
    return {
        {"--dataset", "mnist|cifar10|synthetic (default synthetic)",
         store(choice_flag("--dataset", {"mnist", "cifar10", "synthetic"}), &O::dataset)},
        {"--data-dir", "Directory holding the data set files", store(text_flag(), &O::data_dir)},
        {"--model", "mnist-cnn|mlp|resnet18 (default mnist-cnn)",
         store(choice_flag("--model", {"mnist-cnn", "mlp", "resnet18"}), &O::model)},
        {"--epochs", "Epochs to train (default 1)", store(int_flag("--epochs", 1), &O::epochs)},
        {"--batch-size", "Samples per step per replica (default 64)",
         store(int_flag("--batch-size", 1), &O::batch_size)},
        {"--lr", "Learning rate (default 0.01)", store(num_flag("--lr", 0, true), &O::lr)},
        {"--optimizer", "sgd|adam (default sgd)",
         store(choice_flag("--optimizer", {"sgd", "adam"}), &O::optimizer)},
        {"--momentum", "SGD momentum (default 0.9)",
         store(num_flag("--momentum", 0, false, 0.999999), &O::momentum)},
        {"--weight-decay", "L2 weight decay (default 0)",
         store(num_flag("--weight-decay", 0, false), &O::weight_decay)},
        {"--scale-lr", "true|false: multiply the LR by the world size (default false)",
         store([](const std::string& raw) { return flag_bool("--scale-lr", raw); }, &O::scale_lr)},
        {"--warmup-epochs", "Epochs of linear LR warmup (default 0)",
         store(int_flag("--warmup-epochs", 0), &O::warmup_epochs)},
        {"--lr-step", "Epochs between LR decays, 0 = none (default 0)",
         store(int_flag("--lr-step", 0), &O::lr_step)},
        {"--lr-gamma", "LR decay factor (default 0.1)",
         store(num_flag("--lr-gamma", 0, true, 1), &O::lr_gamma)},
        {"--seed", "Random seed (default 42)", store(int_flag("--seed", 0), &O::seed)},
        {"--checkpoint-dir", "Directory for checkpoints (none by default)",
         store(text_flag(), &O::checkpoint_dir)},
        {"--checkpoint-every", "Steps between checkpoints, 0 = epoch ends only (default 0)",
         store(int_flag("--checkpoint-every", 0), &O::checkpoint_every)},
        {"--keep-checkpoints", "Checkpoints to keep (default 3)",
         store(int_flag("--keep-checkpoints", 1), &O::keep_checkpoints)},
        {"--log-format", "text|json (default text)",
         store(choice_flag("--log-format", {"text", "json"}), &O::log_format)},
        {"--log-every", "Steps between progress lines (default 50)",
         store(int_flag("--log-every", 1), &O::log_every)},
        {"--backend", "auto|gloo|nccl (default auto)",
         store(choice_flag("--backend", {"auto", "gloo", "nccl"}), &O::backend)},
        {"--device",
         "auto|cpu|cuda: where the model and data live (default auto: CUDA device "
         "LOCAL_RANK % devices when libtorch sees one, else cpu)",
         store(choice_flag("--device", {"auto", "cpu", "cuda"}), &O::device)},
        {"--timeout", "Seconds to wait for peers (default 300)",
         store(int_flag("--timeout", 1), &O::timeout_s)},
        {"--threads", "Intra-op threads, 0 = CPU quota / local processes (default 0)",
         store(int_flag("--threads", 0), &O::threads)},
        {"--samples", "Training samples to use, 0 = all (synthetic: its size)",
         store(int_flag("--samples", 0), &O::samples)},
        {"--benchmark", "Measure this many steps and write a profile instead of training",
         store(int_flag("--benchmark", 0), &O::benchmark_steps)},
        {"--profile-out", "File for the --benchmark profile (JSON)",
         store(text_flag(), &O::profile_out)},
    };
}

util::Status check_combinations(const TrainOptions& o) {
    if ((o.dataset == "mnist" || o.dataset == "cifar10") && o.data_dir.empty()) {
        return util::Error{
            fmt::format("--data-dir: required for --dataset {} (got \"\")", o.dataset)};
    }
    if (!o.profile_out.empty() && o.benchmark_steps == 0) {
        return util::Error{
            fmt::format("--profile-out: needs --benchmark STEPS (got {})", o.profile_out)};
    }
    return util::Unit{};
}

// Parse with CLI11 into raw strings; return the error text of CLI11 when it fails.
util::Status parse_raw(CLI::App& app, std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
    } catch (const CLI::CallForHelp&) {
        return util::Error{"help"};
    } catch (const CLI::ArgumentMismatch& e) {
        const std::string what = e.what();
        const auto flag = what.substr(0, what.find(':'));
        return util::Error{fmt::format("{}: needs a value (got nothing)", flag)};
    } catch (const CLI::ParseError& e) {
        return util::Error{e.what()};
    }
    if (!app.remaining().empty()) {
        const auto extra = app.remaining().front();
        const bool flag = extra.rfind("-", 0) == 0;
        return util::Error{fmt::format("{}: {} (got {})", extra,
                                       flag ? "unknown option" : "unexpected argument", extra)};
    }
    return util::Unit{};
}

util::Result<Invocation> parse_train(const std::vector<std::string>& args) {
    CLI::App app{"kftrain-trainer: data-parallel training with libtorch", "kftrain-trainer"};
    app.allow_extras();
    const auto flags = train_flags();
    std::map<std::string, std::string> raw;
    for (const auto& f : flags) {
        app.add_option(f.name, raw[f.name], f.help)
            ->expected(1)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later flag wins
    }
    Invocation out;
    if (auto parsed = parse_raw(app, args); !parsed.ok()) {
        if (parsed.error() == "help") {
            out.command = Command::help;
            out.text = app.help();
            return out;
        }
        return util::Error{parsed.error()};
    }
    for (const auto& f : flags) {
        if (app.count(f.name) == 0) {
            continue;
        }
        if (auto applied = f.apply(raw[f.name], out.train); !applied.ok()) {
            return util::Error{applied.error()};
        }
    }
    if (auto ok = check_combinations(out.train); !ok.ok()) {
        return util::Error{ok.error()};
    }
    return out;
}

util::Result<Invocation> parse_make_dataset(const std::vector<std::string>& args) {
    CLI::App app{"Write a learnable synthetic data set in a standard format",
                 "kftrain-trainer make-dataset"};
    std::string kind, out_dir, samples = "1000", seed = "42";
    app.add_option("kind", kind, "mnist")->required();
    app.add_option("--out", out_dir, "Output directory")->required();
    app.add_option("--samples", samples, "Training samples (default 1000)");
    app.add_option("--seed", seed, "Random seed (default 42)");
    Invocation out;
    out.command = Command::make_dataset;
    if (auto parsed = parse_raw(app, args); !parsed.ok()) {
        if (parsed.error() == "help") {
            out.command = Command::help;
            out.text = app.help();
            return out;
        }
        return util::Error{parsed.error()};
    }
    auto k = flag_choice("kind", kind, {"mnist"});
    auto n = flag_int("--samples", samples, 1);
    auto s = flag_int("--seed", seed, 0);
    for (const std::string* e : {k.ok() ? nullptr : &k.error(), n.ok() ? nullptr : &n.error(),
                                 s.ok() ? nullptr : &s.error()}) {
        if (e != nullptr) {
            return util::Error{*e};
        }
    }
    out.make_dataset = MakeDatasetOptions{*k, out_dir, *n, *s};
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
