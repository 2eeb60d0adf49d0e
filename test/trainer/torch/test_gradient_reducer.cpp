// The bucketed reducer on a one-rank Gloo group: hooks launch buckets during backward.
#include <catch2/catch.hpp>

#include "trainer/comm/comm.h"
#include "trainer/models.h"
#include "trainer_process.h"

using namespace kftrain::trainer;
using namespace kftrain::trainer::comm;

namespace {

std::unique_ptr<Comm> solo_comm() {
    DistEnv env;
    env.master_port = trainer_test::free_port();
    auto comm = Comm::connect(env, std::chrono::seconds(30));
    REQUIRE(comm.ok());
    return std::move(*comm);
}

}  // namespace

TEST_CASE("buckets are all-reduced from the gradient hooks while backward runs",
          "[trainer][reducer]") {
    auto comm = solo_comm();
    torch::manual_seed(3);
    auto model = *make_model("mlp", 1, 28, 28);
    GradientReducer reducer(*comm, model->parameters(), 64 * 1024, 64 * 1024);
    REQUIRE(reducer.bucket_count() >= 2);

    auto x = torch::randn({4, 1, 28, 28});
    auto y = torch::randint(0, 10, {4}, torch::kInt64);
    reducer.prepare();
    torch::nn::functional::cross_entropy(model->forward(x), y).backward();
    CHECK(reducer.hook_launches() == reducer.bucket_count());
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
