#include "util/proc_stat.h"

#include <unistd.h>

#include <catch2/catch.hpp>

using kftrain::util::parse_proc_stat;
using kftrain::util::read_proc_stat;

TEST_CASE("the start time is read after the command name, whatever that name holds",
          "[util][process]") {
    const std::string rest =
        " S 1 100 100 0 -1 4194560 1234 0 0 0 10 5 0 0 20 0 3 0 98765 "
        "1000000 300 18446744073709551615";
    REQUIRE(parse_proc_stat("4242 (kftrain-trainer)" + rest));
    CHECK(parse_proc_stat("4242 (kftrain-trainer)" + rest)->start_ticks == 98765);
    CHECK(parse_proc_stat("4242 (kftrain-trainer)" + rest)->state == 'S');
    REQUIRE(parse_proc_stat("4242 (a name) with (parens)" + rest));
    CHECK(parse_proc_stat("4242 (a name) with (parens)" + rest)->start_ticks == 98765);
    CHECK_FALSE(parse_proc_stat("4242 no parentheses at all"));
    CHECK_FALSE(parse_proc_stat("4242 (short) S 1 2 3"));
    CHECK_FALSE(
        parse_proc_stat("4242 (bad) S 1 100 100 0 -1 4194560 1234 0 0 0 10 5 0 0 20 0 "
                        "3 0 12x4 1000000"));
    CHECK_FALSE(parse_proc_stat(""));
}

TEST_CASE("a /proc stat line gives the CPU time of all threads and the resident pages",
          "[util][process]") {
    // utime 10 and stime 5 (the 14th and 15th fields), rss 300 pages (the 24th).
    const auto stat = parse_proc_stat(
        "4242 (python3) R 1 100 100 0 -1 4194560 1234 0 0 0 10 5 0 0 20 0 3 0 98765 "
        "1000000 300 18446744073709551615");
    REQUIRE(stat);
    CHECK(stat->cpu_ticks == 15);
    CHECK(stat->rss_pages == 300);
    CHECK(stat->parent == 1);
}

TEST_CASE("every process in /proc is read, this one among them", "[util][process]") {
    const auto all = kftrain::util::read_all_proc_stats();
    REQUIRE(all.count(::getpid()) == 1);
    CHECK(all.at(::getpid()).rss_pages > 0);
}

TEST_CASE("this process's /proc stat reads the same as its pid's", "[util][process]") {
    const auto self = read_proc_stat("self");
    const auto by_pid = read_proc_stat(std::to_string(::getpid()));
    REQUIRE(self);
    REQUIRE(by_pid);
    CHECK(self->start_ticks == by_pid->start_ticks);
    CHECK(self->state == 'R');
    CHECK_FALSE(read_proc_stat("0"));
}
