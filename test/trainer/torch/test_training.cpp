// Training quality, data errors and the benchmark profile, through the real program.
#include <filesystem>

#include "trainer_process.h"

using namespace trainer_test;
using namespace std::chrono_literals;

namespace {

Rank make_mnist(const std::string& dir, int samples) {
    const auto make = start_trainer(
        dir, "make",
        {"make-dataset", "mnist", "--out", dir + "/mnist", "--samples", std::to_string(samples)},
        {});
    REQUIRE(wait_exit(make, 60s) == 0);
    return make;
}

}  // namespace

TEST_CASE("mlp on a synthetic MNIST IDX data set reaches 80% test accuracy in 3 epochs",
          "[trainer][training]") {
    const std::string dir = make_temp_dir();
    make_mnist(dir, 3000);
    const auto run = start_trainer(
        dir, "train",
        {"--dataset", "mnist", "--data-dir", dir + "/mnist", "--model", "mlp", "--epochs", "3",
         "--batch-size", "32", "--log-format", "json", "--threads", "1"},
        {});
    CHECK(wait_exit(run, 120s) == 0);
    const auto evals = events(run, "eval");
    REQUIRE(evals.size() == 3);
    CHECK(evals.back()["samples"] == 600);
    CHECK(evals.back()["accuracy"].get<double>() >= 0.80);
    const auto start = events(run, "start").at(0);
    CHECK(start["samples"] == 3000);
    CHECK(start["steps_per_epoch"] == 94);
    CHECK(start["resumed_from"].is_null());
}

TEST_CASE("mnist-cnn trains channels last by default on the CPU, to contiguous's parameters",
          "[trainer][training]") {
    const std::string dir = make_temp_dir();
    std::map<std::string, std::vector<float>> params;
    for (const std::string format : {"auto", "contiguous"}) {
        // Dropout draws the same masks from the same seed in both runs: only the
        // convolutions' arithmetic differs.
        const auto run =
            start_trainer(dir, format,
                          {"--model", "mnist-cnn", "--samples", "128", "--batch-size", "32",
                           "--log-format", "json", "--threads", "1", "--memory-format", format},
                          {{"KFTRAIN_PARAMS_OUT", dir + "/" + format}});
        INFO(read_bytes(run.err_path));
        REQUIRE(wait_exit(run, 120s) == 0);
        CHECK(events(run, "start").at(0)["memory_format"] ==
              (format == "auto" ? "channels-last" : "contiguous"));
        params[format] = read_params(dir + "/" + format + ".rank0");
    }
    REQUIRE(!params["auto"].empty());
    REQUIRE(params["auto"].size() == params["contiguous"].size());
    float worst = 0;
    for (std::size_t i = 0; i < params["auto"].size(); ++i) {
        worst = std::max(worst, std::abs(params["auto"][i] - params["contiguous"][i]));
    }
    CHECK(worst < 1e-4f);
}

TEST_CASE("mlp has no convolutions and stays contiguous", "[trainer][training]") {
    const std::string dir = make_temp_dir();
    const auto run = start_trainer(dir, "mlp",
                                   {"--model", "mlp", "--samples", "64", "--batch-size", "32",
                                    "--log-format", "json", "--threads", "1"},
                                   {});
    REQUIRE(wait_exit(run, 60s) == 0);
    CHECK(events(run, "start").at(0)["memory_format"] == "contiguous");
}

TEST_CASE("a truncated IDX file stops the trainer with exit 1 naming the file",
          "[trainer][training]") {
    const std::string dir = make_temp_dir();
    make_mnist(dir, 50);
    const auto images = dir + "/mnist/train-images-idx3-ubyte";
    std::filesystem::resize_file(images, 1000);
    const auto run = start_trainer(dir, "train",
                                   {"--dataset", "mnist", "--data-dir", dir + "/mnist", "--model",
                                    "mlp", "--log-format", "json"},
                                   {});
    CHECK(wait_exit(run, 60s) == 1);
    const auto errors = events(run, "error");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]["message"] ==
          images + ": 1000 bytes, expected 39216 = 16 + 50*28*28 (truncated or corrupt)");
}

TEST_CASE("a checkpoint directory that cannot be written stops the run before it trains",
          "[trainer][training]") {
    const std::string dir = make_temp_dir();
    write_file(dir + "/taken", "a file, not a directory");
    const auto run = start_trainer(dir, "train",
                                   {"--model", "mlp", "--samples", "64", "--log-format", "json",
                                    "--checkpoint-dir", dir + "/taken"},
                                   {});
    CHECK(wait_exit(run, 60s) == 1);
    const auto errors = events(run, "error");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]["message"] == "--checkpoint-dir " + dir + "/taken: is not a directory");
    CHECK(events(run, "progress").empty());
}

TEST_CASE("make-dataset with more samples than memory holds says so instead of aborting",
          "[trainer][training]") {
    const std::string dir = make_temp_dir();
    // 2^31 - 1 images of 28x28: 1.6 TB.
    const auto run = start_trainer(
        dir, "make", {"make-dataset", "mnist", "--out", dir + "/m", "--samples", "2147483647"}, {});
    CHECK(wait_exit(run, 60s) == 1);
    CHECK(read_bytes(run.err_path) ==
          "kftrain-trainer: error: make-dataset: not enough memory for --samples 2147483647 of "
          "mnist images; make fewer\n");
}

TEST_CASE("a bad flag prints one error line and exits 2", "[trainer][training]") {
    const std::string dir = make_temp_dir();
    const auto run = start_trainer(dir, "bad", {"--batch-size", "0"}, {});
    CHECK(wait_exit(run, 30s) == 2);
    CHECK(read_bytes(run.err_path) ==
          "kftrain-trainer: error: --batch-size: must be >= 1 (got 0)\n");
}

TEST_CASE("a benchmark run writes a profile with compute, all-reduce and overlap figures",
          "[trainer][benchmark]") {
    const std::string dir = make_temp_dir();
    const auto profile = two_rank_mlp_profile(dir, {"--benchmark", "5", "--samples", "256"});
    CHECK(profile["world_size"] == 2);
    // At least the steps asked for, after warm-up steps that are reported and not counted.
    CHECK(profile["steps"].get<int64_t>() >= 5);
    CHECK(profile["warmup_steps"].get<int64_t>() >= 3);
    CHECK(profile["compute_s_stddev"].get<double>() >= 0);
    // The typical step (the median block's) next to the plain mean of every step.
    CHECK(profile["compute_s_mean"].get<double>() > 0);
    CHECK(profile["parameters"] == 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
    CHECK(profile["gradient_bytes"] == profile["parameters"].get<int64_t>() * 4);
    CHECK(profile["grad_compression"] == "none");
    CHECK(profile["backend"] == "shm");  // both ranks on this host
    CHECK(profile["allreduce_bytes_per_step"] == profile["gradient_bytes"]);
    CHECK(profile["compute_s_per_step"].get<double>() > 0);
    CHECK(profile["allreduce_bandwidth_bytes_per_s"].get<double>() > 0);
    const double overlap = profile["overlap_fraction"].get<double>();
    CHECK(overlap >= 0);
    CHECK(overlap <= 1);
    // What a whole run costs besides its steps, for the estimate: the process start (with
    // the rendezvous at 2 ranks), the warm-up steps, and evaluation.
    CHECK(profile["startup_s"].get<double>() > 0);
    CHECK(profile["warmup_s"].get<double>() > 0);
    CHECK(profile["eval_s_per_sample"].get<double>() > 0);
    CHECK(profile["eval_warmup_s"].get<double>() >= 0);
    // --bucket-mb auto (the default): the probe's figures and the capacity chosen from them,
    // within the range auto chooses in; mlp's 0.9 MiB of gradients fill one bucket.
    CHECK(profile["link_latency_s"].get<double>() > 0);
    CHECK(profile["link_bytes_per_s"].get<double>() > 0);
    const auto bucket_bytes = profile["bucket_bytes"].get<int64_t>();
    CHECK(bucket_bytes >= 256 * 1024);
    CHECK(bucket_bytes <= 25 * 1024 * 1024);
    CHECK(profile["buckets"] == 1);
}

TEST_CASE("a given --bucket-mb sets the bucket size and skips the link probe",
          "[trainer][benchmark]") {
    const std::string dir = make_temp_dir();
    // mlp's gradients, last layer first: fc3 and fc2 (137 KB) fill the 0.125 MiB first
    // bucket, fc1 (804 KB) is the second; auto's 0.25 MiB or more would hold them all.
    const auto profile =
        two_rank_mlp_profile(dir, {"--benchmark", "3", "--samples", "128", "--bucket-mb", "0.125"});
    CHECK(profile["bucket_bytes"] == 128 * 1024);
    CHECK(profile["buckets"] == 2);
    // Given, not probed: no link figures.
    CHECK(profile["link_latency_s"].is_null());
    CHECK(profile["link_bytes_per_s"].is_null());
}

TEST_CASE("a benchmark times a checkpoint in --checkpoint-dir and leaves nothing there",
          "[trainer][benchmark]") {
    const std::string dir = make_temp_dir();
    const auto ckpt = dir + "/ckpt";
    std::filesystem::create_directories(ckpt);
    const auto run =
        start_trainer(dir, "bench",
                      {"--model", "mlp", "--benchmark", "5", "--profile-out", dir + "/profile.json",
                       "--threads", "1", "--samples", "256", "--checkpoint-dir", ckpt},
                      {});
    REQUIRE(wait_exit(run, 60s) == 0);
    const auto profile = nlohmann::json::parse(read_bytes(dir + "/profile.json"));
    CHECK(profile["world_size"] == 1);
    // The model's and the optimizer's state: more than the parameters alone.
    CHECK(profile["checkpoint_bytes"].get<int64_t>() > profile["gradient_bytes"].get<int64_t>());
    CHECK(profile["checkpoint_s"].get<double>() > 0);
    CHECK(std::filesystem::is_empty(ckpt));
}
