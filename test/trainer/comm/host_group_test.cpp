// Ranks of one host summing through shared memory: real processes (fork), real segments.
#include "trainer/comm/host_group.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <stdexcept>
#include <vector>

#include "trainer/comm/fork_rank.h"

using namespace kftrain::trainer::comm;
using namespace std::chrono_literals;
using kftrain::test::exit_code;
using kftrain::test::fork_rank;

namespace {

constexpr std::size_t k_slot = 4096;  // small, so that buffers span several chunks

// Rank r's element i: small integers, so that float sums are exact.
template <typename T>
std::vector<T> contribution(int rank, std::size_t n) {
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = static_cast<T>((rank + 1) * static_cast<int>(i % 97) - rank);
    }
    return v;
}

template <typename T>
std::vector<T> expected_sum(int world, std::size_t n) {
    std::vector<T> sum(n, 0);
    for (int r = 0; r < world; ++r) {
        const auto v = contribution<T>(r, n);
        for (std::size_t i = 0; i < n; ++i) {
            sum[i] += v[i];
        }
    }
    return sum;
}

template <typename T>
std::vector<T> expected_mean(int world, std::size_t n) {
    auto mean = expected_sum<T>(world, n);
    for (auto& v : mean) {
        v /= static_cast<T>(world);
    }
    return mean;
}

const std::vector<std::size_t> k_counts = {
    0, 1, 17, k_slot / 4 - 1, k_slot / 4 + 5, 3 * k_slot + 3};

// Sum every count of k_counts as float, then as double, then average them; return whether
// every result is right.
bool sum_all(HostGroup& group, int rank, int world) {
    bool ok = true;
    for (std::size_t n : k_counts) {
        auto f = contribution<float>(rank, n);
        group.allreduce(f.data(), n, HostType::f32, 60s);
        ok = ok && f == expected_sum<float>(world, n);
        auto d = contribution<double>(rank, n);
        group.allreduce(d.data(), n, HostType::f64, 60s);
        ok = ok && d == expected_sum<double>(world, n);
        auto fm = contribution<float>(rank, n);
        group.allreduce(fm.data(), n, HostType::f32, 60s, ReduceOp::mean);
        ok = ok && fm == expected_mean<float>(world, n);
        auto dm = contribution<double>(rank, n);
        group.allreduce(dm.data(), n, HostType::f64, 60s, ReduceOp::mean);
        ok = ok && dm == expected_mean<double>(world, n);
    }
    return ok;
}

// Split v into pieces of the given lengths (the last takes the rest).
template <typename T>
std::vector<HostPiece> pieces_of(const std::vector<T>& v, const std::vector<std::size_t>& lengths) {
    std::vector<HostPiece> pieces;
    std::size_t at = 0;
    for (std::size_t length : lengths) {
        length = std::min(length, v.size() - at);
        pieces.push_back(HostPiece{v.data() + at, length});
        at += length;
    }
    pieces.push_back(HostPiece{v.data() + at, v.size() - at});
    return pieces;
}

// Sum a buffer of several chunks laid out in pieces (empty ones, ones shorter than a rank's
// share and ones across chunks) into another buffer, then average one in place in out, its
// pieces there; return whether both results are right.
bool sum_pieces(HostGroup& group, int rank, int world) {
    const std::size_t n = 3 * k_slot / 4 + 21;
    const std::vector<std::size_t> lengths = {0, 5, 300, 0, k_slot / 4 + 1, 7};
    const auto f = contribution<float>(rank, n);
    std::vector<float> sum(n, -1.0f);
    group.allreduce(pieces_of(f, lengths), sum.data(), HostType::f32, 60s);
    auto d = contribution<double>(rank, n);
    group.allreduce(pieces_of(d, lengths), d.data(), HostType::f64, 60s, ReduceOp::mean);
    return f == contribution<float>(rank, n) && sum == expected_sum<float>(world, n) &&
           d == expected_mean<double>(world, n);
}

// Rank 0's group, its name removed from /dev/shm when the test ends.
struct Created {
    std::unique_ptr<HostGroup> group;
    explicit Created(int world) {
        auto created = HostGroup::create(world, k_slot);
        REQUIRE(created.ok());
        group = std::move(*created);
    }
    ~Created() { group->unlink(); }
    HostGroup* operator->() const { return group.get(); }
    HostGroup& operator*() const { return *group; }
};

// Run body(group, rank, world) on every rank of a new group of world ranks, rank 0 in this
// process and the others forked; return whether it returned true on every rank.
bool on_every_rank(int world, const std::function<bool(HostGroup&, int, int)>& body) {
    Created group(world);
    std::vector<pid_t> children;
    for (int r = 1; r < world; ++r) {
        children.push_back(fork_rank([&, r] {
            auto opened = HostGroup::open(group->name(), r, world);
            return opened.ok() && body(**opened, r, world);
        }));
    }
    bool ok = body(*group, 0, world);
    for (pid_t pid : children) {
        ok = exit_code(pid) == 0 && ok;
    }
    return ok;
}

}  // namespace

TEST_CASE(
    "ranks on one host sum and average float and double buffers of any length through "
    "shared memory",
    "[trainer][comm][host]") {
    CHECK(on_every_rank(GENERATE(2, 3), sum_all));
}

TEST_CASE(
    "ranks sum a buffer laid out in pieces into another buffer, or in place, through shared "
    "memory",
    "[trainer][comm][host]") {
    CHECK(on_every_rank(GENERATE(2, 3), sum_pieces));
}

TEST_CASE("a rank that exited is named by the others' all-reduce, long before the timeout",
          "[trainer][comm][host]") {
    Created group(2);
    const pid_t child = fork_rank([&] {
        auto opened = HostGroup::open(group->name(), 1, 2);
        return opened.ok() && (*opened).release() != nullptr;  // exits holding the group
    });
    REQUIRE(exit_code(child) == 0);
    std::vector<float> v(100, 1.0f);
    // A timeout of an hour: only noticing the exit ends this.
    CHECK_THROWS_WITH(group->allreduce(v.data(), v.size(), HostType::f32, 3600s),
                      "shared-memory all-reduce: rank 1 exited");
    CHECK_THROWS_WITH(group->allreduce(v.data(), v.size(), HostType::f32, 3600s),
                      "shared-memory all-reduce: the group failed earlier");
}

TEST_CASE("a rank that closed the group is named by the others' all-reduce",
          "[trainer][comm][host]") {
    Created group(2);
    const pid_t child = fork_rank([&] { return HostGroup::open(group->name(), 1, 2).ok(); });
    REQUIRE(exit_code(child) == 0);
    std::vector<float> v(100, 1.0f);
    CHECK_THROWS_WITH(group->allreduce(v.data(), v.size(), HostType::f32, 3600s),
                      "shared-memory all-reduce: rank 1 left the group");
}

TEST_CASE("a rank that hangs makes the others' all-reduce fail at the timeout",
          "[trainer][comm][host]") {
    Created group(2);
    int gate[2];
    REQUIRE(::pipe(gate) == 0);
    const pid_t child = fork_rank([&] {
        ::close(gate[1]);
        auto opened = HostGroup::open(group->name(), 1, 2);
        char byte = 0;
        return opened.ok() && ::read(gate[0], &byte, 1) == 0;  // until the parent closes it
    });
    ::close(gate[0]);
    std::vector<double> v(10, 1.0);
    CHECK_THROWS_WITH(group->allreduce(v.data(), v.size(), HostType::f64, 300ms),
                      "shared-memory all-reduce: not done within 0.3s (a peer hangs)");
    ::close(gate[1]);
    CHECK(exit_code(child) == 0);
}

TEST_CASE("once unlinked the segment cannot be opened and nothing is left in /dev/shm",
          "[trainer][comm][host]") {
    Created group(2);
    const std::string name = group->name();
    CHECK(::access(("/dev/shm" + name).c_str(), F_OK) == 0);
    group->unlink();
    CHECK(::access(("/dev/shm" + name).c_str(), F_OK) != 0);
    const auto opened = HostGroup::open(name, 1, 2);
    REQUIRE(!opened.ok());
    CHECK(opened.error() == "cannot open shared memory " + name + ": No such file or directory");
}

TEST_CASE("rank 0's group dropped before it was unlinked leaves nothing in /dev/shm",
          "[trainer][comm][host]") {
    auto created = HostGroup::create(2, k_slot);
    REQUIRE(created.ok());
    const std::string path = "/dev/shm" + (*created)->name();
    CHECK(::access(path.c_str(), F_OK) == 0);
    (*created).reset();
    CHECK(::access(path.c_str(), F_OK) != 0);
}

TEST_CASE("a rank that is not one of the group's is refused", "[trainer][comm][host]") {
    Created group(2);
    for (const auto& [rank, world] : std::vector<std::pair<int, int>>{{2, 2}, {0, 2}, {1, 3}}) {
        const auto opened = HostGroup::open(group->name(), rank, world);
        REQUIRE(!opened.ok());
        CHECK(opened.error() == "shared memory " + group->name() + " is not a kftrain group of " +
                                    std::to_string(world) + " ranks");
    }
}
