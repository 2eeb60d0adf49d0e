// nccl_group.cpp's control flow against a fake CUDA and NCCL (fake_cuda_nccl.cpp): it says
// nothing about real GPUs, but the staging, the deadlines and the abort run here.
#include <catch2/catch.hpp>
#include <vector>

#include "fake_cuda_nccl.h"
#include "trainer/comm/nccl_group.h"

using namespace kftrain::trainer::comm;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<NcclGroup> join(int rank, std::chrono::milliseconds timeout = 300ms) {
    auto id = NcclGroup::make_id();
    REQUIRE(id.ok());
    auto group = NcclGroup::connect(*id, rank, 2, 3, timeout);
    INFO((group.ok() ? "" : group.error()));
    REQUIRE(group.ok());
    return std::move(*group);
}

}  // namespace

TEST_CASE("an NCCL all-reduce of host memory stages it through the device and back",
          "[trainer][nccl-fake]") {
    fake_gpu::reset();
    fake_gpu::state().devices = 2;
    {
        auto group = join(0);
        CHECK(group->device() == 1);  // LOCAL_RANK 3 on 2 devices
        std::vector<float> grads{1, 2, 3};
        auto op = group->allreduce_sum(grads.data(), grads.size(), NcclType::f32, false);
        REQUIRE(op.ok());
        REQUIRE((*op)->wait().ok());
        CHECK(grads == std::vector<float>{2, 4, 6});
        std::vector<float> params(4, 0.5f);
        auto bcast = group->broadcast(params.data(), params.size(), NcclType::f32, false);
        REQUIRE(bcast.ok());
        REQUIRE((*bcast)->wait().ok());
        CHECK(params == std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f});  // rank 0 is the root
    }
    CHECK(fake_gpu::state().destroys == 1);
    CHECK(fake_gpu::state().aborts == 0);
    CHECK(fake_gpu::state().comms_alive == 0);
    CHECK(fake_gpu::state().pinned_live == 0);
}

TEST_CASE("an NCCL broadcast gives a non-root rank rank 0's values", "[trainer][nccl-fake]") {
    fake_gpu::reset();
    auto group = join(1);
    std::vector<float> params(3, 0.5f);
    auto op = group->broadcast(params.data(), params.size(), NcclType::f32, false);
    REQUIRE(op.ok());
    REQUIRE((*op)->wait().ok());
    CHECK(params == std::vector<float>(3, fake_gpu::k_root_value));
}

TEST_CASE("a staging buffer is reused once its collective is waited for", "[trainer][nccl-fake]") {
    fake_gpu::reset();
    auto group = join(0);
    std::vector<float> a(8, 1), b(8, 1);
    for (int step = 0; step < 3; ++step) {
        auto first = group->allreduce_sum(a.data(), a.size(), NcclType::f32, false);
        auto second = group->allreduce_sum(b.data(), b.size(), NcclType::f32, false);
        REQUIRE((*first)->wait().ok());
        REQUIRE((*second)->wait().ok());
    }
    CHECK(fake_gpu::state().pinned_live == 2);  // two in flight at once, never more
    CHECK(a == std::vector<float>(8, 8));
}

TEST_CASE("a collective that never finishes aborts the communicator after the timeout",
          "[trainer][nccl-fake]") {
    fake_gpu::reset();
    auto group = join(0);
    std::vector<float> grads{1};
    auto op = group->allreduce_sum(grads.data(), 1, NcclType::f32, false);
    REQUIRE(op.ok());
    fake_gpu::state().hang = true;
    auto waited = (*op)->wait();
    REQUIRE_FALSE(waited.ok());
    CHECK(waited.error() == "ncclAllReduce: not done within 0s (a peer failed, exited or hangs)");
    CHECK(fake_gpu::state().aborts == 1);
    auto next = group->allreduce_sum(grads.data(), 1, NcclType::f32, false);
    REQUIRE_FALSE(next.ok());
    CHECK(next.error() == "ncclAllReduce: the NCCL communicator was aborted by an earlier error");
    CHECK(fake_gpu::state().aborts == 1);  // aborted once; the destructor leaves it alone
}

TEST_CASE("an asynchronous NCCL error ends the wait at once with NCCL's message",
          "[trainer][nccl-fake]") {
    fake_gpu::reset();
    auto group = join(0, 60000ms);
    std::vector<float> grads{1};
    auto op = group->allreduce_sum(grads.data(), 1, NcclType::f32, false);
    fake_gpu::state().hang = true;
    fake_gpu::state().async_error = ncclRemoteError;
    auto waited = (*op)->wait();
    REQUIRE_FALSE(waited.ok());
    CHECK(waited.error() == "ncclAllReduce: remote process exited or there was a network error");
    CHECK(fake_gpu::state().aborts == 1);
}

TEST_CASE("peers that never join make connect fail after the timeout", "[trainer][nccl-fake]") {
    fake_gpu::reset();
    fake_gpu::state().init_polls = -1;
    auto id = NcclGroup::make_id();
    auto group = NcclGroup::connect(*id, 1, 2, 0, 200ms);
    REQUIRE_FALSE(group.ok());
    CHECK(group.error() ==
          "cannot start NCCL as rank 1 of 2 on CUDA device 0: ncclCommInitRankConfig: not done "
          "within 0s (a peer failed, exited or hangs)");
    CHECK(fake_gpu::state().aborts == 1);
    CHECK(fake_gpu::state().comms_alive == 0);
}

TEST_CASE("connect names the CUDA error when no device can be used", "[trainer][nccl-fake]") {
    fake_gpu::reset();
    fake_gpu::state().device_error = cudaErrorNoDevice;
    auto group = NcclGroup::connect(*NcclGroup::make_id(), 0, 2, 0, 200ms);
    REQUIRE_FALSE(group.ok());
    CHECK(group.error() == "cudaGetDeviceCount: no CUDA-capable device is detected");
    const auto facts = probe_cuda();
    CHECK(facts.nccl_built);
    CHECK(facts.error == "no CUDA-capable device is detected");
}
