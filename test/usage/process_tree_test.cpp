#include "usage/process_tree.h"

#include <catch2/catch.hpp>

using kftrain::usage::process_tree;
using kftrain::usage::ProcessTable;
using kftrain::usage::tree_cpu_cores;
using kftrain::usage::tree_resident_bytes;

namespace {

// One process of a reading: its parent, start time, CPU ticks and resident pages.
kftrain::util::ProcStat process_stat(long long parent, unsigned long long start,
                                     unsigned long long ticks, long long pages) {
    kftrain::util::ProcStat stat;
    stat.state = 'R';
    stat.parent = parent;
    stat.start_ticks = start;
    stat.cpu_ticks = ticks;
    stat.rss_pages = pages;
    return stat;
}

}  // namespace

TEST_CASE("a replica's tree holds its children and grandchildren and nothing else", "[usage]") {
    const ProcessTable table = {{1, process_stat(0, 1, 0, 0)},
                                {10, process_stat(1, 5, 0, 1)},   // the replica
                                {11, process_stat(10, 6, 0, 1)},  // its child
                                {12, process_stat(11, 7, 0, 1)},  // a grandchild
                                {20, process_stat(1, 8, 0, 1)}};  // another replica
    CHECK(process_tree(table, 10) == std::set<long long>{10, 11, 12});
    CHECK(process_tree(table, 99).empty());
}

TEST_CASE("resident memory counts each process of the tree once", "[usage]") {
    const ProcessTable table = {{10, process_stat(1, 5, 0, 100)},
                                {11, process_stat(10, 6, 0, 50)},
                                {12, process_stat(11, 7, 0, 25)},
                                {20, process_stat(1, 8, 0, 1000)}};
    CHECK(tree_resident_bytes(table, 10, 4096) == Approx(175.0 * 4096));
}

TEST_CASE("CPU is the tree's ticks gained between readings, vanished processes skipped",
          "[usage]") {
    const ProcessTable before = {{10, process_stat(1, 5, 100, 1)},
                                 {11, process_stat(10, 6, 40, 1)},
                                 {12, process_stat(11, 7, 500, 1)},   // ends before the second
                                 {13, process_stat(10, 8, 900, 1)}};  // its pid is reused
    const ProcessTable after = {{10, process_stat(1, 5, 150, 1)},     // +50
                                {11, process_stat(10, 6, 90, 1)},     // +50
                                {13, process_stat(10, 30, 20, 1)},    // new: all its 20
                                {14, process_stat(11, 31, 30, 1)},    // a new grandchild: 30
                                {20, process_stat(1, 9, 10000, 1)}};  // not in the tree
    // 150 ticks at 100 per second over half a second: 3 cores.
    CHECK(tree_cpu_cores(before, after, 10, 100, 0.5) == Approx(3.0));
    CHECK(tree_cpu_cores(before, after, 99, 100, 0.5) == 0);
}
