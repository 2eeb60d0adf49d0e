#include "trainer/startup/options.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer;

namespace {

kftrain::util::Result<Invocation> parse(std::vector<std::string> args) {
    return parse_command_line(args);
}

}  // namespace

TEST_CASE("defaults match the documented contract", "[trainer][options]") {
    auto r = parse({});
    REQUIRE(r.ok());
    const auto& o = r->train;
    CHECK(r->command == Command::train);
    CHECK(o.dataset == "synthetic");
    CHECK(o.model == "mnist-cnn");
    CHECK(o.epochs == 1);
    CHECK(o.batch_size == 64);
    CHECK(o.lr == 0.01);
    CHECK(o.optimizer == "sgd");
    CHECK(o.momentum == 0.9);
    CHECK(o.seed == 42);
    CHECK(o.log_format == "text");
    CHECK(o.log_every == 50);
    CHECK(o.backend == "auto");
    CHECK(o.timeout_s == 300);
    CHECK(o.keep_checkpoints == 3);
    CHECK(o.nan_patience == 3);
    CHECK(o.grad_compression == "none");
}

TEST_CASE("every flag takes a value, booleans as true/false", "[trainer][options]") {
    auto r = parse({"train",      "--dataset",
                    "mnist",      "--data-dir",
                    "/data",      "--model",
                    "resnet18",   "--epochs",
                    "3",          "--batch-size",
                    "32",         "--lr",
                    "0.1",        "--optimizer",
                    "adam",       "--momentum",
                    "0.5",        "--weight-decay",
                    "0.0001",     "--scale-lr",
                    "true",       "--warmup-epochs",
                    "1",          "--lr-step",
                    "2",          "--lr-gamma",
                    "0.5",        "--seed",
                    "7",          "--checkpoint-dir",
                    "/ckpt",      "--checkpoint-every",
                    "100",        "--keep-checkpoints",
                    "2",          "--log-format",
                    "json",       "--log-every",
                    "10",         "--backend",
                    "gloo",       "--timeout",
                    "60",         "--threads",
                    "2",          "--samples",
                    "1000",       "--benchmark",
                    "20",         "--profile-out",
                    "/tmp/p.json"});
    REQUIRE(r.ok());
    const auto& o = r->train;
    CHECK(o.dataset == "mnist");
    CHECK(o.data_dir == "/data");
    CHECK(o.model == "resnet18");
    CHECK(o.epochs == 3);
    CHECK(o.batch_size == 32);
    CHECK(o.optimizer == "adam");
    CHECK(o.scale_lr);
    CHECK(o.weight_decay == 0.0001);
    CHECK(o.lr_gamma == 0.5);
    CHECK(o.checkpoint_every == 100);
    CHECK(o.keep_checkpoints == 2);
    CHECK(o.log_format == "json");
    CHECK(o.timeout_s == 60);
    CHECK(o.samples == 1000);
    CHECK(o.benchmark_steps == 20);
    CHECK(o.profile_out == "/tmp/p.json");
}

TEST_CASE("bad flag values name the flag, the problem and the value", "[trainer][options]") {
    struct Case {
        std::vector<std::string> args;
        std::string error;
    };
    const std::vector<Case> cases = {
        {{"--epochs", "0"}, "--epochs: must be >= 1 (got 0)"},
        {{"--epochs", "two"}, "--epochs: must be an integer (got two)"},
        {{"--lr", "-1"}, "--lr: must be > 0 (got -1)"},
        {{"--scale-lr", "yes"}, "--scale-lr: must be true or false (got yes)"},
        {{"--model", "vgg"}, "--model: must be one of mnist-cnn, mlp, resnet18 (got vgg)"},
        {{"--log-format", "xml"}, "--log-format: must be one of text, json (got xml)"},
        {{"--lr-gamma", "2"}, "--lr-gamma: must be > 0 and <= 1 (got 2)"},
        {{"--dataset", "mnist"}, "--data-dir: required for --dataset mnist (got \"\")"},
        {{"--profile-out", "p.json"}, "--profile-out: needs --benchmark STEPS (got p.json)"},
        {{"--frobnicate", "1"}, "--frobnicate: unknown option (got --frobnicate)"},
        {{"--nan-patience", "0"}, "--nan-patience: must be >= 1 (got 0)"},
        {{"--nan-patience", "-2"}, "--nan-patience: must be >= 1 (got -2)"},
        {{"--nan-patience", "many"}, "--nan-patience: must be an integer (got many)"},
        {{"--grad-compression", "fp8"},
         "--grad-compression: must be one of none, fp16, bf16 (got fp8)"},
        {{"--grad-compression", "FP16"},
         "--grad-compression: must be one of none, fp16, bf16 (got FP16)"},
        {{"--grad-compression", ""},
         "--grad-compression: must be one of none, fp16, bf16 (got \"\")"},
        {{"--bucket-mb", "0"},
         "--bucket-mb: must be auto or a number >= 0.001 and <= 1024 (got 0)"},
        {{"--bucket-mb", "1e-9"},
         "--bucket-mb: must be auto or a number >= 0.001 and <= 1024 (got 1e-9)"},
        {{"--bucket-mb", "2000"},
         "--bucket-mb: must be auto or a number >= 0.001 and <= 1024 (got 2000)"},
        {{"--bucket-mb", "Auto"},
         "--bucket-mb: must be auto or a number >= 0.001 and <= 1024 (got Auto)"},
        {{"--bucket-mb", ""},
         "--bucket-mb: must be auto or a number >= 0.001 and <= 1024 (got \"\")"},
    };
    for (const auto& c : cases) {
        auto r = parse(c.args);
        INFO(c.args[0]);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error() == c.error);
    }
}

TEST_CASE("grad-compression takes none, fp16 or bf16", "[trainer][options]") {
    for (const std::string value : {"none", "fp16", "bf16"}) {
        auto r = parse({"--grad-compression", value});
        REQUIRE(r.ok());
        CHECK(r->train.grad_compression == value);
    }
}

TEST_CASE("bucket-mb takes auto (the default) or a size in MiB", "[trainer][options]") {
    auto defaults = parse({});
    REQUIRE(defaults.ok());
    CHECK(defaults->train.bucket_mb == 0);
    auto automatic = parse({"--bucket-mb", "auto"});
    REQUIRE(automatic.ok());
    CHECK(automatic->train.bucket_mb == 0);
    auto given = parse({"--bucket-mb", "2.5"});
    REQUIRE(given.ok());
    CHECK(given->train.bucket_mb == 2.5);
}

TEST_CASE("make-dataset takes a kind, --out, --samples and --seed", "[trainer][options]") {
    auto r = parse({"make-dataset", "mnist", "--out", "/tmp/d", "--samples", "500"});
    REQUIRE(r.ok());
    CHECK(r->command == Command::make_dataset);
    CHECK(r->make_dataset.out == "/tmp/d");
    CHECK(r->make_dataset.samples == 500);
    CHECK(r->make_dataset.seed == 42);
    auto bad = parse({"make-dataset", "imagenet", "--out", "/tmp/d"});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error() == "kind: must be one of mnist (got imagenet)");
}

TEST_CASE("the version flag prints the trainer version", "[trainer][options]") {
    auto r = parse({"--version"});
    REQUIRE(r.ok());
    CHECK(r->command == Command::version);
    CHECK(r->text.rfind("kftrain-trainer ", 0) == 0);
}

TEST_CASE("a flag without a value is named, and a repeated flag keeps the last value",
          "[trainer][options]") {
    auto missing = parse({"--model", "mlp", "--epochs"});
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error() == "--epochs: needs a value (got nothing)");
    auto twice = parse({"--epochs", "2", "--epochs", "3"});
    REQUIRE(twice.ok());
    CHECK(twice->train.epochs == 3);
    auto stray = parse({"stray"});
    REQUIRE_FALSE(stray.ok());
    CHECK(stray.error() == "stray: unexpected argument (got stray)");
}

TEST_CASE("the device flag takes auto, cpu or cuda and defaults to auto", "[trainer][options]") {
    CHECK(parse({})->train.device == "auto");
    CHECK(parse({"--device", "cuda"})->train.device == "cuda");
    CHECK(parse({"--device", "cpu"})->train.device == "cpu");
    auto bad = parse({"--device", "gpu"});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error() == "--device: must be one of auto, cpu, cuda (got gpu)");
}

TEST_CASE("the memory-format flag takes auto, channels-last or contiguous, default auto",
          "[trainer][options]") {
    CHECK(parse({})->train.memory_format == "auto");
    CHECK(parse({"--memory-format", "channels-last"})->train.memory_format == "channels-last");
    CHECK(parse({"--memory-format", "contiguous"})->train.memory_format == "contiguous");
    auto bad = parse({"--memory-format", "nhwc"});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error() ==
          "--memory-format: must be one of auto, channels-last, contiguous (got nhwc)");
}

TEST_CASE("nan-patience takes the number of non-finite steps to tolerate", "[trainer][options]") {
    auto r = parse({"--nan-patience", "5"});
    REQUIRE(r.ok());
    CHECK(r->train.nan_patience == 5);
}
