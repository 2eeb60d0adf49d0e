// Sums queued on a host group's own thread: real processes (fork), real segments.
#include "trainer/comm/host_queue.h"

#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "trainer/comm/fork_rank.h"

using namespace kftrain::trainer::comm;
using namespace std::chrono_literals;
using kftrain::test::exit_code;
using kftrain::test::fork_rank;

namespace {

// Return a buffer as the one piece it is read from (it is summed in place).
template <typename T>
std::vector<HostPiece> whole(const std::vector<T>& v) {
    return {HostPiece{v.data(), v.size()}};
}

// Three buffers of rank r, queued at once and waited for last, as gradient buckets are.
bool sum_queued(std::unique_ptr<HostGroup> group, int rank) {
    std::vector<float> a(1000, static_cast<float>(rank + 1));
    std::vector<double> b(10, 0.5 * rank);
    std::vector<float> c(70000, 1.0f);  // more than one slot
    bool ok = true;
    {
        HostQueue queue(std::move(group), 60s);
        auto fa = queue.push(whole(a), a.data(), HostType::f32);
        auto fb = queue.push(whole(b), b.data(), HostType::f64);
        auto fc = queue.push(whole(c), c.data(), HostType::f32);
        fa.get();
        fb.get();
        // c is left to the queue's end: dropping the queue finishes what was pushed.
    }
    ok = ok && a == std::vector<float>(1000, 3.0f);  // 1 + 2
    ok = ok && b == std::vector<double>(10, 0.5);    // 0 + 0.5
    ok = ok && c == std::vector<float>(70000, 2.0f);
    return ok;
}

// Two buffers queued, then a third summed on the calling thread: it must go after them (a
// rank that summed it first would pair its buffer with the other rank's first one).
bool allreduce_here_after_queued(std::unique_ptr<HostGroup> group, int rank) {
    std::vector<float> a(1000, static_cast<float>(rank + 1));
    std::vector<float> c(70000, 1.0f);  // more than one slot
    std::vector<double> b(10, 0.25 * rank);
    HostQueue queue(std::move(group), 60s);
    auto fa = queue.push(whole(a), a.data(), HostType::f32);
    auto fc = queue.push(whole(c), c.data(), HostType::f32);
    queue.allreduce_here(whole(b), b.data(), HostType::f64);
    const bool queued_done = fa.wait_for(0s) == std::future_status::ready &&
                             fc.wait_for(0s) == std::future_status::ready;
    fa.get();
    fc.get();
    return queued_done && a == std::vector<float>(1000, 3.0f) &&
           c == std::vector<float>(70000, 2.0f) && b == std::vector<double>(10, 0.25);
}

// Create a group of 2 ranks as rank 0 and fork rank 1, which opens it and runs rank1 with it;
// return rank 0's group and rank 1's pid.
std::pair<std::unique_ptr<HostGroup>, pid_t> two_ranks(
    const std::function<bool(std::unique_ptr<HostGroup>)>& rank1) {
    auto created = HostGroup::create(2, 4096);
    REQUIRE(created.ok());
    const std::string name = (*created)->name();
    const pid_t child = fork_rank([&] {
        auto opened = HostGroup::open(name, 1, 2);
        return opened.ok() && rank1(std::move(*opened));
    });
    return {std::move(*created), child};
}

}  // namespace

TEST_CASE("a host queue sums buffers in the order pushed while the caller goes on",
          "[trainer][comm][host]") {
    auto [group, child] = two_ranks(
        [](std::unique_ptr<HostGroup> opened) { return sum_queued(std::move(opened), 1); });
    // Rank 0's group, dropped with its queue, removes the name from /dev/shm.
    CHECK(sum_queued(std::move(group), 0));
    CHECK(exit_code(child) == 0);
}

TEST_CASE("a sum on the caller's thread goes after the sums queued before it",
          "[trainer][comm][host]") {
    auto [group, child] = two_ranks([](std::unique_ptr<HostGroup> opened) {
        return allreduce_here_after_queued(std::move(opened), 1);
    });
    CHECK(allreduce_here_after_queued(std::move(group), 0));
    CHECK(exit_code(child) == 0);
}

TEST_CASE("a host queue hands a peer's exit to the caller through the future",
          "[trainer][comm][host]") {
    auto [group, child] = two_ranks([](std::unique_ptr<HostGroup> opened) {
        return opened.release() != nullptr;  // exits holding the group
    });
    REQUIRE(exit_code(child) == 0);
    group->unlink();
    HostQueue queue(std::move(group), 3600s);
    std::vector<float> v(100, 1.0f);
    auto first = queue.push(whole(v), v.data(), HostType::f32);
    auto second = queue.push(whole(v), v.data(), HostType::f32);
    CHECK_THROWS_WITH(first.get(), "shared-memory all-reduce: rank 1 exited");
    CHECK_THROWS_WITH(second.get(), "shared-memory all-reduce: the group failed earlier");
}
