#include "estimate/profile.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "estimate/builtin_profile.h"
#include "estimate/network_shape.h"
#include "trainer/profile/profile.h"

using namespace kftrain::estimate;

namespace {

// The profile `kftrain-trainer --benchmark 20 --profile-out profile.json` writes at 2 replicas.
nlohmann::json trainer_profile() {
    return nlohmann::json::parse(R"({
        "model": "mnist-cnn", "dataset": "mnist", "parameters": 1199882,
        "gradient_bytes": 4799528, "batch_size": 64, "threads": 2, "world_size": 2,
        "steps": 20, "compute_s_per_step": 0.12, "forward_s_per_step": 0.04,
        "backward_s_per_step": 0.075, "allreduce_s_per_step": 0.01,
        "allreduce_bandwidth_bytes_per_s": 479952800.0, "overlap_fraction": 0.6,
        "samples_per_sec": 1000.0, "trainer_version": "0.1.0"})");
}

}  // namespace

TEST_CASE("estimate reads the profile the trainer writes", "[estimate]") {
    const auto p = parse_profile(trainer_profile().dump(), "profile.json");
    REQUIRE(p.ok());
    CHECK(p->model == "mnist-cnn");
    CHECK(p->gradient_bytes == 4799528);
    CHECK(p->world_size == 2);
    CHECK(p->compute_s_per_step == 0.12);
    CHECK(p->allreduce_bandwidth_bytes_per_s == 479952800.0);
    CHECK(p->overlap_fraction == 0.6);
    CHECK(p->measured);
    CHECK(p->source == "profile.json");
}

TEST_CASE("estimate reads a one-replica profile with null bandwidth and overlap", "[estimate]") {
    auto json = trainer_profile();
    json["world_size"] = 1;
    json["allreduce_bandwidth_bytes_per_s"] = nullptr;
    json["overlap_fraction"] = nullptr;
    const auto p = parse_profile(json.dump(), "profile.json");
    REQUIRE(p.ok());
    CHECK_FALSE(p->allreduce_bandwidth_bytes_per_s);
    CHECK_FALSE(p->overlap_fraction);
}

TEST_CASE("estimate reads the warm-up and the spread, and profiles written before them",
          "[estimate]") {
    auto json = trainer_profile();
    json["warmup_steps"] = 4;
    json["compute_s_stddev"] = 0.006;
    json["compute_s_mean"] = 0.031;
    json["backend"] = "shm";
    json["grad_compression"] = "fp16";
    json["bucket_bytes"] = 1048576;
    const auto p = parse_profile(json.dump(), "profile.json");
    REQUIRE(p.ok());
    CHECK(p->warmup_steps == 4);
    CHECK(p->compute_s_stddev == 0.006);
    CHECK(p->compute_s_mean == 0.031);
    // What repeats of one world size must agree on.
    CHECK(p->backend == "shm");
    CHECK(p->grad_compression == "fp16");
    CHECK(p->bucket_bytes == 1048576);
    const auto older = parse_profile(trainer_profile().dump(), "profile.json");
    REQUIRE(older.ok());
    CHECK(older->warmup_steps == 0);
    CHECK(older->compute_s_stddev == 0);
    CHECK(older->compute_s_mean == 0);
    CHECK(older->backend == "none");
    CHECK(older->bucket_bytes == 0);
}

TEST_CASE("estimate reads what a whole run costs besides its steps, 0 in older profiles",
          "[estimate]") {
    auto json = trainer_profile();
    json["startup_s"] = 0.9;
    json["warmup_s"] = 0.4;
    json["eval_s_per_sample"] = 0.0004;
    json["eval_warmup_s"] = 0.5;
    json["checkpoint_bytes"] = 9620264;
    json["checkpoint_s"] = 0.05;
    const auto p = parse_profile(json.dump(), "profile.json");
    REQUIRE(p.ok());
    CHECK(p->startup_s == 0.9);
    CHECK(p->warmup_s == 0.4);
    CHECK(p->eval_s_per_sample == 0.0004);
    CHECK(p->eval_warmup_s == 0.5);
    CHECK(p->checkpoint_bytes == 9620264);
    CHECK(p->checkpoint_s == 0.05);
    const auto older = parse_profile(trainer_profile().dump(), "profile.json");
    REQUIRE(older.ok());
    CHECK(older->startup_s == 0);
    CHECK(older->eval_s_per_sample == 0);
    CHECK(older->checkpoint_s == 0);
    json["startup_s"] = -1;
    const auto bad = parse_profile(json.dump(), "profile.json");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().find("startup_s") != std::string::npos);
    CHECK(bad.error().find("profile.json") != std::string::npos);
}

TEST_CASE("estimate rejects a bad profile naming the file and the key", "[estimate]") {
    struct Case {
        std::string key;
        nlohmann::json value;  // discarded: remove the key
        std::string message;
    };
    const Case cases[] = {
        {"compute_s_per_step", nlohmann::json::value_t::discarded,
         "p.json: field 'compute_s_per_step' is missing"},
        {"compute_s_per_step", "fast",
         "p.json: field 'compute_s_per_step' is not a number > 0 (got \"fast\")"},
        {"compute_s_per_step", 0, "p.json: field 'compute_s_per_step' is not a number > 0 (got 0)"},
        {"gradient_bytes", 1.5, "p.json: field 'gradient_bytes' is not an integer >= 1 (got 1.5)"},
        {"batch_size", 0, "p.json: field 'batch_size' is not an integer >= 1 (got 0)"},
        {"overlap_fraction", 1.5,
         "p.json: field 'overlap_fraction' is not a number between 0 and 1 "
         "(got 1.5)"},
        {"allreduce_bandwidth_bytes_per_s", nlohmann::json::value_t::discarded,
         "p.json: field 'allreduce_bandwidth_bytes_per_s' is missing"},
        {"model", 3, "p.json: field 'model' is not a non-empty string (got 3)"},
        {"warmup_steps", -1, "p.json: field 'warmup_steps' is not an integer >= 0 (got -1)"},
        {"compute_s_stddev", "wide",
         "p.json: field 'compute_s_stddev' is not a number >= 0 (got \"wide\")"},
    };
    for (const auto& c : cases) {
        INFO(c.key << " = " << c.value.dump());
        auto json = trainer_profile();
        if (c.value.is_discarded()) {
            json.erase(c.key);
        } else {
            json[c.key] = c.value;
        }
        const auto p = parse_profile(json.dump(), "p.json");
        REQUIRE_FALSE(p.ok());
        CHECK(p.error() == c.message);
    }
}

TEST_CASE("estimate rejects a profile that is not a JSON object", "[estimate]") {
    CHECK(parse_profile("{not json", "p.json").error() ==
          "p.json: not valid JSON (a profile written by `kftrain-trainer --benchmark STEPS "
          "--profile-out FILE`)");
    CHECK(parse_profile("[1, 2]", "p.json").error() == "p.json: must be a JSON object (got array)");
}

TEST_CASE("estimate counts the parameters of the trainer's models", "[estimate]") {
    struct Case {
        std::string model;
        std::string dataset;
        int64_t parameters;
    };
    const Case cases[] = {
        {"mnist-cnn", "mnist", 1'199'882},  // the PyTorch MNIST example
        {"mnist-cnn", "synthetic", 1'199'882}, {"mlp", "mnist", 235'146},  // 784-256-128-10
        {"resnet18", "cifar10", 11'173'962},  // the CIFAR variant: 3x3 stem, no max pool
        {"resnet18", "synthetic", 11'173'962},
    };
    for (const auto& c : cases) {
        INFO(c.model << " on " << c.dataset);
        const auto input = dataset_shape(c.dataset, c.model);
        REQUIRE(input);
        const auto shape = network_shape(c.model, *input);
        REQUIRE(shape);
        CHECK(shape->parameters == c.parameters);
    }
}

TEST_CASE("estimate counts forward FLOPs per sample", "[estimate]") {
    // mnist-cnn: conv1 26x26x32x9, conv2 24x24x64x32x9, fc1 9216x128, fc2 128x10 MACs.
    const int64_t macs = 26 * 26 * 32 * 9 + 24 * 24 * 64 * 32 * 9 + 9216 * 128 + 128 * 10;
    CHECK(network_shape("mnist-cnn", *dataset_shape("mnist", "mnist-cnn"))
              ->forward_flops_per_sample == 2 * macs);
    // ResNet-18 on 32x32 images: about 0.56 GMACs.
    const auto resnet = network_shape("resnet18", *dataset_shape("cifar10", "resnet18"));
    CHECK(resnet->forward_flops_per_sample == Approx(2 * 0.556e9).epsilon(0.01));
}

TEST_CASE("estimate builds a profile from FLOPs and an assumed device speed", "[estimate]") {
    const auto p = builtin_profile("mlp", "mnist", 100, DeviceSpeed{1e9, "test"});
    REQUIRE(p.ok());
    const double forward = 2.0 * 235'146 / 1e9 * 100 - 2.0 * (256 + 128 + 10) / 1e9 * 100;
    CHECK(p->compute_s_per_step == Approx(3 * forward));
    CHECK(p->backward_s_per_step == Approx(2 * forward));
    CHECK(p->gradient_bytes == 4 * 235'146);
    CHECK_FALSE(p->measured);
    CHECK_FALSE(p->overlap_fraction);
    CHECK(builtin_profile("vgg16", "mnist", 64, DeviceSpeed{1e9, ""}).error() ==
          "trainer.model: no built-in profile for this model; measure one with "
          "`kftrain-trainer --benchmark 20 --profile-out profile.json` (got vgg16)");
}

TEST_CASE("the profile the trainer writes is the one kftrain estimate reads", "[estimate]") {
    kftrain::trainer::Profile p;
    p.model = "resnet18";
    p.dataset = "cifar10";
    p.parameters = 11173962;
    p.gradient_bytes = 44695848;
    p.batch_size = 32;
    p.threads = 2;
    p.world_size = 2;
    p.steps = 20;
    p.compute_s_per_step = 0.5;
    p.forward_s_per_step = 0.15;
    p.backward_s_per_step = 0.3;
    p.allreduce_s_per_step = 0.2;
    p.allreduce_bandwidth_bytes_per_s = 2.2e8;
    p.overlap_fraction = 0.25;
    p.samples_per_sec = 91.5;
    p.startup_s = 1.5;
    p.warmup_s = 2.5;
    p.eval_s_per_sample = 0.003;
    p.eval_warmup_s = 0.7;
    p.checkpoint_bytes = 89400000;
    p.checkpoint_s = 0.4;
    p.compute_s_blocks = {0.5, 0.55, 0.45};
    p.step_s_blocks = {0.6, 0.7, 0.65, 0.6};
    auto read =
        kftrain::estimate::parse_profile(kftrain::trainer::profile_json(p).dump(), "profile.json");
    REQUIRE(read);
    const kftrain::wire::ProfileFields& fields = *read;
    CHECK(fields.model == p.model);
    CHECK(fields.dataset == p.dataset);
    CHECK(fields.parameters == p.parameters);
    CHECK(fields.gradient_bytes == p.gradient_bytes);
    CHECK(fields.batch_size == p.batch_size);
    CHECK(fields.threads == p.threads);
    CHECK(fields.world_size == p.world_size);
    CHECK(fields.steps == p.steps);
    CHECK(fields.compute_s_per_step == p.compute_s_per_step);
    CHECK(fields.forward_s_per_step == p.forward_s_per_step);
    CHECK(fields.backward_s_per_step == p.backward_s_per_step);
    CHECK(fields.allreduce_s_per_step == p.allreduce_s_per_step);
    CHECK(fields.allreduce_bandwidth_bytes_per_s == p.allreduce_bandwidth_bytes_per_s);
    CHECK(fields.overlap_fraction == p.overlap_fraction);
    CHECK(fields.samples_per_sec == p.samples_per_sec);
    CHECK(fields.startup_s == p.startup_s);
    CHECK(fields.warmup_s == p.warmup_s);
    CHECK(fields.eval_s_per_sample == p.eval_s_per_sample);
    CHECK(fields.eval_warmup_s == p.eval_warmup_s);
    CHECK(fields.checkpoint_bytes == p.checkpoint_bytes);
    CHECK(fields.checkpoint_s == p.checkpoint_s);
    CHECK(fields.compute_s_blocks == p.compute_s_blocks);
    CHECK(fields.step_s_blocks == p.step_s_blocks);
    CHECK(read->measured);
    CHECK_FALSE(read->trainer_version.empty());
}
