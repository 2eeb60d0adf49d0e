#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/result.h"

namespace kftrain::trainer {

// Hold every flag of `kftrain-trainer train`, typed and validated.
struct TrainOptions {
    std::string dataset = "synthetic";
    std::string data_dir;
    std::string model = "mnist-cnn";
    int epochs = 1;
    int batch_size = 64;
    double lr = 0.01;
    std::string optimizer = "sgd";
    double momentum = 0.9;
    double weight_decay = 0.0;
    bool scale_lr = false;
    int warmup_epochs = 0;
    int lr_step = 0;
    double lr_gamma = 0.1;
    int64_t seed = 42;
    std::string checkpoint_dir;
    int64_t checkpoint_every = 0;
    int keep_checkpoints = 3;
    int nan_patience = 3;
    std::string log_format = "text";
    int log_every = 50;
    bool metric_lines = false;
    int metrics_port = 0;  // 0: no /metrics endpoint
    std::string backend = "auto";
    std::string grad_compression = "none";
    double bucket_mb = 0;  // gradient bucket capacity in MiB; 0: auto, from a probe at start
    std::string device = "auto";
    std::string memory_format = "auto";
    int timeout_s = 300;
    int threads = 0;
    int64_t samples = 0;
    int64_t benchmark_steps = 0;
    std::string profile_out;
};

// Hold the flags of `kftrain-trainer make-dataset mnist`.
struct MakeDatasetOptions {
    std::string kind = "mnist";
    std::string out;
    int64_t samples = 1000;
    int64_t seed = 42;
};

// Say which command a command line asks for.
enum class Command { train, make_dataset, version, help };

// Hold a parsed command line: the command and its options, or the text to print.
struct Invocation {
    Command command = Command::train;
    TrainOptions train;
    MakeDatasetOptions make_dataset;
    std::string text;
};

// Parse argv (without the program name); errors read "--flag: what is wrong (got VALUE)".
util::Result<Invocation> parse_command_line(const std::vector<std::string>& args);

}  // namespace kftrain::trainer
