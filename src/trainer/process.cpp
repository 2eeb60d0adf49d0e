#include "trainer/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace kftrain::trainer {
namespace {

std::vector<std::string> merged_env(const std::map<std::string, std::string>& changes) {
    std::vector<std::string> out;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry(*e);
        const auto name = entry.substr(0, entry.find('='));
        if (changes.count(name) == 0) {
            out.push_back(entry);
        }
    }
    for (const auto& [name, value] : changes) {
        out.push_back(name + "=" + value);
    }
    return out;
}

std::vector<char*> c_strings(std::vector<std::string>& items) {
    std::vector<char*> out;
    for (auto& s : items) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

int decode_status(int status) {
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return 128 + WTERMSIG(status);
}

}  // namespace

Result<pid_t> spawn_process(const SpawnSpec& spec) {
    if (spec.argv.empty()) {
        return Error{"spawn: empty argv"};
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const int mode = O_WRONLY | O_CREAT | O_TRUNC;
    if (!spec.stdout_path.empty()) {
        posix_spawn_file_actions_addopen(&actions, 1, spec.stdout_path.c_str(), mode, 0644);
    }
    if (!spec.stderr_path.empty()) {
        posix_spawn_file_actions_addopen(&actions, 2, spec.stderr_path.c_str(), mode, 0644);
    }
    auto argv = spec.argv;
    auto env = merged_env(spec.env);
    auto c_argv = c_strings(argv);
    auto c_env = c_strings(env);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, c_argv[0], &actions, nullptr, c_argv.data(), c_env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        return Error{fmt::format("cannot start {}: {}", spec.argv[0], std::strerror(rc))};
    }
    return pid;
}

std::optional<int> wait_process(pid_t pid, std::chrono::milliseconds timeout) {
    auto found = wait_any({pid}, timeout);
    if (!found) {
        return std::nullopt;
    }
    return found->second;
}

std::optional<std::pair<pid_t, int>> wait_any(const std::vector<pid_t>& pids,
                                              std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        for (pid_t pid : pids) {
            int status = 0;
            const pid_t got = ::waitpid(pid, &status, WNOHANG);
            if (got == pid) {
                return std::make_pair(pid, decode_status(status));
            }
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return std::nullopt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace kftrain::trainer
