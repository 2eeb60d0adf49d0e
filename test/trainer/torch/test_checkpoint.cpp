// Checkpoint round trip in-process (the one test file that includes torch headers).
// libtorch's headers define glog's CHECK, which replaces Catch's where Catch comes first
// and aborts the binary on a failed check instead of reporting it: libtorch first.
#include <torch/torch.h>
// Catch after libtorch, so that CHECK is Catch's.
#include <catch2/catch.hpp>

#include "support/files.h"
#include "trainer/checkpoint/files.h"
#include "trainer/checkpoint/frame.h"
#include "trainer/checkpoint/io.h"
#include "trainer/data/file_bytes.h"
#include "trainer/models.h"

using kftrain::test::make_temp_dir;
using kftrain::test::write_file;
using namespace kftrain::trainer;
using namespace kftrain::trainer::checkpoint;
using namespace kftrain::trainer::data;

namespace {

struct Trained {
    std::shared_ptr<Net> model;
    std::unique_ptr<torch::optim::SGD> optimizer;
};

Trained make_trained(const std::string& name, int channels, int side, int steps) {
    torch::manual_seed(1);
    Trained t{*make_model(name, channels, side, side), nullptr};
    t.optimizer = std::make_unique<torch::optim::SGD>(t.model->parameters(),
                                                      torch::optim::SGDOptions(0.1).momentum(0.9));
    for (int i = 0; i < steps; ++i) {
        auto x = torch::randn({8, channels, side, side});
        auto y = torch::randint(0, 10, {8}, torch::kInt64);
        t.optimizer->zero_grad();
        torch::nn::functional::cross_entropy(t.model->forward(x), y).backward();
        t.optimizer->step();
    }
    return t;
}

void one_step(Trained& t, const torch::Tensor& x, const torch::Tensor& y) {
    t.optimizer->zero_grad();
    torch::nn::functional::cross_entropy(t.model->forward(x), y).backward();
    t.optimizer->step();
}

bool same_tensors(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!torch::equal(a[i], b[i])) {
            return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("a checkpoint restores parameters, momentum and position exactly",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    auto original = make_trained("mlp", 1, 28, 3);
    REQUIRE(
        save_checkpoint(dir + "/c.pt", *original.model, *original.optimizer, TrainPosition{2, 37})
            .ok());
    auto restored = make_trained("mlp", 1, 28, 0);
    bool legacy = true;
    auto payload = read_checkpoint_file(dir + "/c.pt", legacy);
    REQUIRE(payload.ok());
    CHECK_FALSE(legacy);
    auto pos = load_checkpoint_bytes(*payload, "c.pt", *restored.model, *restored.optimizer);
    REQUIRE(pos.ok());
    CHECK(pos->epoch == 2);
    CHECK(pos->global_step == 37);
    CHECK(same_tensors(original.model->parameters(), restored.model->parameters()));
    auto x = torch::randn({8, 1, 28, 28});
    auto y = torch::randint(0, 10, {8}, torch::kInt64);
    one_step(original, x, y);
    one_step(restored, x, y);  // identical only if the momentum buffers were restored
    CHECK(same_tensors(original.model->parameters(), restored.model->parameters()));
}

TEST_CASE("a checkpoint restores batch-norm running statistics", "[trainer][checkpoint]") {
    auto original = make_trained("resnet18", 3, 8, 1);
    const auto bytes = checkpoint_bytes(*original.model, *original.optimizer, TrainPosition{});
    auto restored = make_trained("resnet18", 3, 8, 0);
    REQUIRE(load_checkpoint_bytes(bytes, "mem", *restored.model, *restored.optimizer).ok());
    CHECK(same_tensors(original.model->buffers(), restored.model->buffers()));
}

TEST_CASE(
    "a checkpoint loads into a model of either memory format, which keeps its own for "
    "its parameters and their momentum",
    "[trainer][checkpoint]") {
    // Written contiguous (as trainers before channels last did) and read channels last, and
    // the other way round.
    const auto [written, read] =
        GENERATE(std::pair{torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast},
                 std::pair{torch::MemoryFormat::ChannelsLast, torch::MemoryFormat::Contiguous});
    auto original = make_trained("mnist-cnn", 3, 12, 0);
    original.model->set_memory_format(written);
    for (int i = 0; i < 2; ++i) {
        one_step(original, torch::randn({8, 3, 12, 12}), torch::randint(0, 10, {8}, torch::kInt64));
    }
    const auto bytes = checkpoint_bytes(*original.model, *original.optimizer, TrainPosition{});
    auto restored = make_trained("mnist-cnn", 3, 12, 0);
    restored.model->set_memory_format(read);
    REQUIRE(load_checkpoint_bytes(bytes, "mem", *restored.model, *restored.optimizer).ok());
    CHECK(same_tensors(original.model->parameters(), restored.model->parameters()));
    const auto conv = restored.model->named_parameters()["conv2.weight"];
    CHECK(conv.suggest_memory_format() == read);
    CHECK(restored.model->memory_format() == read);
    // The momentum is laid out as its parameter, so that the update does not mix layouts.
    const auto& state =
        restored.optimizer->state().at(c10::guts::to_string(conv.unsafeGetTensorImpl()));
    const auto& momentum = static_cast<torch::optim::SGDParamState&>(*state).momentum_buffer();
    CHECK(momentum.suggest_memory_format() == read);
    // And training goes on from the same momentum as the writer's.
    const auto x = torch::randn({8, 3, 12, 12});
    const auto y = torch::randint(0, 10, {8}, torch::kInt64);
    torch::manual_seed(7);  // the same dropout masks for both
    one_step(original, x, y);
    torch::manual_seed(7);
    one_step(restored, x, y);
    const auto a = original.model->parameters();
    const auto b = restored.model->parameters();
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(torch::allclose(a[i], b[i], 1e-5, 1e-6));
    }
}

TEST_CASE("a checkpoint of another model is refused with the file named", "[trainer][checkpoint]") {
    auto mlp = make_trained("mlp", 1, 28, 0);
    const auto bytes = checkpoint_bytes(*mlp.model, *mlp.optimizer, TrainPosition{});
    auto cnn = make_trained("mnist-cnn", 1, 28, 0);
    auto pos = load_checkpoint_bytes(bytes, "ckpt-00000001.pt", *cnn.model, *cnn.optimizer);
    REQUIRE_FALSE(pos.ok());
    CHECK(pos.error().rfind("ckpt-00000001.pt: not a checkpoint of this model and optimizer", 0) ==
          0);
    auto garbage = load_checkpoint_bytes("not a zip", "x.pt", *cnn.model, *cnn.optimizer);
    CHECK_FALSE(garbage.ok());
}

TEST_CASE("a checkpoint of another image size is refused, naming the tensor, the model untouched",
          "[trainer][checkpoint]") {
    auto wide = make_trained("mlp", 1, 28, 1);
    const auto bytes = checkpoint_bytes(*wide.model, *wide.optimizer, TrainPosition{1, 7});
    auto narrow = make_trained("mlp", 1, 20, 1);
    std::vector<torch::Tensor> before;
    for (const auto& p : narrow.model->parameters()) {
        before.push_back(p.detach().clone());
    }
    auto pos = load_checkpoint_bytes(bytes, "ckpt-00000007.pt", *narrow.model, *narrow.optimizer);
    REQUIRE_FALSE(pos.ok());
    CHECK(pos.error() ==
          "ckpt-00000007.pt: a checkpoint of another model or image size: fc1.weight is [256, "
          "784] there and [256, 400] in this model (another --model, --dataset or image size "
          "than the run that wrote it)");
    // Nothing was loaded: the model trains on as it was, with 20x20 images.
    CHECK(same_tensors(narrow.model->parameters(), before));
    one_step(narrow, torch::randn({8, 1, 20, 20}), torch::randint(0, 10, {8}, torch::kInt64));
}

TEST_CASE("a checkpoint of another optimizer is refused, naming it, not as a PyTorch bug",
          "[trainer][checkpoint]") {
    torch::manual_seed(1);
    auto model = *make_model("mlp", 1, 28, 28);
    torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(0.01));
    adam.zero_grad();
    torch::nn::functional::cross_entropy(model->forward(torch::randn({8, 1, 28, 28})),
                                         torch::randint(0, 10, {8}, torch::kInt64))
        .backward();
    adam.step();
    const auto bytes = checkpoint_bytes(*model, adam, TrainPosition{0, 1});
    auto sgd = make_trained("mlp", 1, 28, 1);
    auto pos = load_checkpoint_bytes(bytes, "ckpt-00000001.pt", *sgd.model, *sgd.optimizer);
    REQUIRE_FALSE(pos.ok());
    CHECK(pos.error() ==
          "ckpt-00000001.pt: its optimizer state is not sgd's (written with another --optimizer)");
}

TEST_CASE("a saved checkpoint carries a checksum that catches a flipped bit",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    auto original = make_trained("mlp", 1, 28, 1);
    REQUIRE(
        save_checkpoint(dir + "/c.pt", *original.model, *original.optimizer, TrainPosition{0, 5})
            .ok());
    auto bytes = *read_file_bytes(dir + "/c.pt");
    REQUIRE(read_frame(bytes).ok());
    // A bit in the middle of the parameters: torch alone would load it.
    bytes[bytes.size() / 2] ^= 0x08;
    write_file(dir + "/c.pt", bytes);
    bool legacy = true;
    auto payload = read_checkpoint_file(dir + "/c.pt", legacy);
    REQUIRE_FALSE(payload.ok());
    CHECK(payload.error().rfind(dir + "/c.pt: checksum mismatch (stored ", 0) == 0);
}

TEST_CASE("a checkpoint written without a frame by an older trainer loads as legacy",
          "[trainer][checkpoint]") {
    const std::string dir = make_temp_dir();
    auto original = make_trained("mlp", 1, 28, 1);
    write_file(dir + "/c.pt",
               checkpoint_bytes(*original.model, *original.optimizer, TrainPosition{1, 9}));
    bool legacy = false;
    auto payload = read_checkpoint_file(dir + "/c.pt", legacy);
    REQUIRE(payload.ok());
    CHECK(legacy);
    auto restored = make_trained("mlp", 1, 28, 0);
    auto pos = load_checkpoint_bytes(*payload, "c.pt", *restored.model, *restored.optimizer);
    REQUIRE(pos.ok());
    CHECK(pos->global_step == 9);
    CHECK(same_tensors(original.model->parameters(), restored.model->parameters()));
}
