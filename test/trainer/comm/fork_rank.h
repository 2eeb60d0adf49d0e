#pragma once

// Ranks as real processes for the shared-memory tests: fork, run, report by exit code.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>

namespace kftrain::test {

// Run body in a child process; return its pid. The child exits 0 when body returns true.
// Fork before starting any thread: the child has only the thread that forked.
inline pid_t fork_rank(const std::function<bool()>& body) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        bool ok = false;
        try {
            ok = body();
        } catch (...) {
        }
        ::_exit(ok ? 0 : 1);
    }
    return pid;
}

// Wait for a child; return its exit code, or 128 + the signal that ended it.
inline int exit_code(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace kftrain::test
