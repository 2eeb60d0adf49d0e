// The bucketed reducer on a one-rank group, over Gloo and through shared memory (which reads
// the gradients where backward left them): hooks launch buckets during backward.
// libtorch's headers define glog's CHECK, which replaces Catch's where Catch comes first
// and aborts the binary on a failed check instead of reporting it: libtorch first.
#include <torch/torch.h>
// Catch after libtorch, so that CHECK is Catch's.
#include <catch2/catch.hpp>

#include "trainer/comm/comm.h"
#include "trainer/comm/gradient_reducer.h"
#include "trainer/models.h"
#include "trainer_process.h"

using namespace kftrain::trainer;
using namespace kftrain::trainer::comm;

namespace {

std::unique_ptr<Comm> solo_comm(Backend backend = Backend::gloo) {
    DistEnv env;
    env.master_port = trainer_test::free_port();
    auto comm = Comm::connect(env, std::chrono::seconds(30));
    REQUIRE(comm.ok());
    if (backend == Backend::shm) {
        auto shared = (*comm)->use_shared_memory();
        REQUIRE(shared.ok());
        REQUIRE(*shared);
    }
    REQUIRE((*comm)->backend() == backend);
    return std::move(*comm);
}

}  // namespace

TEST_CASE("buckets are all-reduced from the gradient hooks while backward runs",
          "[trainer][reducer]") {
    auto comm = solo_comm(GENERATE(Backend::gloo, Backend::shm));
    torch::manual_seed(3);
    auto model = *make_model("mlp", 1, 28, 28);
    GradientReducer reducer(*comm, model->parameters(), 64 * 1024, 64 * 1024);
    REQUIRE(reducer.bucket_count() >= 2);

    auto x = torch::randn({4, 1, 28, 28});
    auto y = torch::randint(0, 10, {4}, torch::kInt64);
    reducer.prepare();
    torch::nn::functional::cross_entropy(model->forward(x), y).backward();
    CHECK(reducer.hook_launches() == reducer.bucket_count() - 1);  // finish() sums the last
    std::vector<torch::Tensor> local;
    for (const auto& p : model->parameters()) {
        local.push_back(p.grad().clone());
    }
    reducer.finish();
    const auto params = model->parameters();
    for (std::size_t i = 0; i < params.size(); ++i) {
        CHECK(torch::allclose(params[i].grad(), local[i]));  // the mean over one rank
    }
}

TEST_CASE("with hooks disabled gradients stay local and nothing is launched",
          "[trainer][reducer]") {
    auto comm = solo_comm();
    auto model = *make_model("mlp", 1, 28, 28);
    GradientReducer reducer(*comm, model->parameters(), 1024, 1024);
    reducer.set_enabled(false);
    reducer.prepare();
    auto x = torch::randn({2, 1, 28, 28});
    torch::nn::functional::cross_entropy(model->forward(x), torch::zeros({2}, torch::kInt64))
        .backward();
    CHECK(reducer.hook_launches() == 0);
}

namespace {

// Return the mean gradients a one-rank reducer with compression writes, and the local ones.
std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> reduce_once(
    Comm& comm, GradCompression compression, int64_t& wire_bytes) {
    torch::manual_seed(5);
    auto model = *make_model("mlp", 1, 28, 28);
    GradientReducer reducer(comm, model->parameters(), 64 * 1024, 64 * 1024, compression);
    wire_bytes = reducer.wire_bytes();
    auto x = torch::randn({4, 1, 28, 28});
    auto y = torch::randint(0, 10, {4}, torch::kInt64);
    reducer.prepare();
    torch::nn::functional::cross_entropy(model->forward(x), y).backward();
    std::vector<torch::Tensor> local, reduced;
    for (const auto& p : model->parameters()) {
        local.push_back(p.grad().clone());
    }
    reducer.finish();
    for (const auto& p : model->parameters()) {
        reduced.push_back(p.grad().clone());
        CHECK(p.grad().scalar_type() == torch::kFloat32);
    }
    return {local, reduced};
}

}  // namespace

TEST_CASE("fp16 compression sends half the bytes and gives gradients rounded to fp16",
          "[trainer][reducer]") {
    auto comm = solo_comm();
    CHECK(comm->carries(torch::kHalf));
    int64_t none_bytes = 0, half_bytes = 0;
    reduce_once(*comm, {}, none_bytes);
    const auto [local, reduced] = reduce_once(*comm, {torch::kHalf, true}, half_bytes);
    CHECK(half_bytes * 2 == none_bytes);
    for (std::size_t i = 0; i < local.size(); ++i) {
        CHECK(torch::equal(reduced[i], local[i].to(torch::kHalf).to(torch::kFloat32)));
    }
}

TEST_CASE("bf16 compression the backend cannot carry rounds to bf16 and sends fp32",
          "[trainer][reducer]") {
    auto comm = solo_comm();
    int64_t none_bytes = 0, bf16_bytes = 0;
    reduce_once(*comm, {}, none_bytes);
    const auto [local, reduced] = reduce_once(*comm, {torch::kBFloat16, false}, bf16_bytes);
    CHECK(bf16_bytes == none_bytes);
    bool any_rounded = false;
    for (std::size_t i = 0; i < local.size(); ++i) {
        const auto rounded = local[i].to(torch::kBFloat16).to(torch::kFloat32);
        CHECK(torch::equal(reduced[i], rounded));
        any_rounded = any_rounded || !torch::equal(rounded, local[i]);
    }
    CHECK(any_rounded);
}

TEST_CASE("each step averages its own gradients, whether they were dropped or zeroed before it",
          "[trainer][reducer]") {
    auto comm = solo_comm(GENERATE(Backend::gloo, Backend::shm));
    // mlp, and mnist-cnn with its convolution weights channels last (NHWC in memory).
    const auto [name, format] = GENERATE(table<std::string, torch::MemoryFormat>(
        {{"mlp", torch::MemoryFormat::Contiguous},
         {"mnist-cnn", torch::MemoryFormat::ChannelsLast}}));
    CAPTURE(name);
    const auto make = [&, name = name, format = format] {
        auto net = *make_model(name, 1, 28, 28);
        net->set_memory_format(format);
        net->eval();  // no dropout: the copy below computes the same gradients
        return net;
    };
    torch::manual_seed(7);
    auto model = make();
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
    GradientReducer reducer(*comm, model->parameters(), 64 * 1024, 64 * 1024);
    // Three steps on different batches: the first from no gradients, the second from dropped
    // ones, the third from ones zeroed in place (the reducer's views are the gradients then).
    for (int step = 0; step < 3; ++step) {
        if (step == 1) {
            for (auto& p : model->parameters()) {
                p.mutable_grad() = torch::Tensor();
            }
        }
        if (step == 2) {
            optimizer.zero_grad();
        }
        auto x = torch::randn({4, 1, 28, 28});
        auto y = torch::randint(0, 10, {4}, torch::kInt64);
        // The same step's gradients, computed on a copy of the model.
        auto copy = make();
        {
            torch::NoGradGuard no_grad;
            const auto from = model->parameters();
            auto to = copy->parameters();
            for (std::size_t i = 0; i < from.size(); ++i) {
                to[i].copy_(from[i]);
            }
        }
        torch::nn::functional::cross_entropy(copy->forward(x), y).backward();
        std::vector<torch::Tensor> expected;
        for (const auto& p : copy->parameters()) {
            expected.push_back(p.grad().clone());
        }
        reducer.prepare();
        torch::nn::functional::cross_entropy(model->forward(x), y).backward();
        reducer.finish();
        const auto params = model->parameters();
        for (std::size_t i = 0; i < params.size(); ++i) {
            CHECK(torch::allclose(params[i].grad(), expected[i]));
            // Laid out like its parameter, as the optimizer reads them fastest.
            CHECK(params[i].grad().suggest_memory_format() == params[i].suggest_memory_format());
        }
        optimizer.step();
    }
}
