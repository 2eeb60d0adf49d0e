#include "trainer/startup/malloc_tuning.h"

#include <catch2/catch.hpp>

using namespace kftrain::trainer;

TEST_CASE("the trainer keeps malloc settings a user gives in GLIBC_TUNABLES", "[trainer][malloc]") {
    struct Case {
        const char* tunables;
        bool user;
    };
    const Case cases[] = {
        {nullptr, false},
        {"", false},
        {"glibc.pthread.rseq=0", false},
        {"glibc.malloc.mmap_threshold=33554432", true},
        {"glibc.pthread.rseq=0:glibc.malloc.trim_threshold=0", true},
    };
    for (const auto& c : cases) {
        INFO((c.tunables != nullptr ? c.tunables : "(unset)"));
        CHECK(malloc_tuned_by_user(c.tunables) == c.user);
    }
}
