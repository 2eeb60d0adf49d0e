#include "util/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

// environ: <unistd.h> declares it (g++ defines _GNU_SOURCE).

namespace kftrain::util {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> build_environment(const SpawnOptions& options) {
    std::map<std::string, std::string> merged;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        std::string entry(*e);
        auto eq = entry.find('=');
        if (eq != std::string::npos) {
            merged[entry.substr(0, eq)] = entry.substr(eq + 1);
        }
    }
    for (const auto& name : options.unset_env) {
        merged.erase(name);
    }
    for (const auto& [name, value] : options.env) {
        merged[name] = value;
    }
    std::vector<std::string> out;
    out.reserve(merged.size());
    for (const auto& [name, value] : merged) {
        out.push_back(name + "=" + value);
    }
    return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

// Arrange one standard stream of the child; returns the parent's pipe end or -1.
Status plan_stream(posix_spawn_file_actions_t* actions, const Redirect& redirect, int target,
                   UniqueFd& parent_end, UniqueFd& child_end) {
    switch (redirect.kind) {
        case Redirect::Kind::Inherit:
            return ok_status();
        case Redirect::Kind::Null:
            posix_spawn_file_actions_addopen(actions, target, "/dev/null",
                                             target == 0 ? O_RDONLY : O_WRONLY, 0);
            return ok_status();
        case Redirect::Kind::File:
            posix_spawn_file_actions_addopen(actions, target, redirect.path.c_str(),
                                             O_WRONLY | O_CREAT | O_APPEND, 0644);
            return ok_status();
        case Redirect::Kind::Pipe: {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC) != 0) {
                return error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
            }
            parent_end.reset(target == 0 ? fds[1] : fds[0]);
            child_end.reset(target == 0 ? fds[0] : fds[1]);
            posix_spawn_file_actions_adddup2(actions, child_end.get(), target);
            return ok_status();
        }
    }
    return ok_status();
}

ExitStatus decode(int wstatus) {
    ExitStatus status;
    if (WIFEXITED(wstatus)) {
        status.code = WEXITSTATUS(wstatus);
    } else if (WIFSIGNALED(wstatus)) {
        status.signal = WTERMSIG(wstatus);
    }
    return status;
}

}  // namespace

std::string ExitStatus::describe() const {
    if (signal != 0) {
        return fmt::format("signal {} ({})", signal, ::strsignal(signal));
    }
    return fmt::format("exit code {}", code);
}

namespace {

// The process groups of children started with own_group and not yet waited for: a fixed
// table of lock-free slots, so a signal handler can read it.
constexpr size_t k_group_slots = 64;
std::atomic<pid_t> g_child_groups[k_group_slots];

void list_group(pid_t group) {
    for (auto& slot : g_child_groups) {
        pid_t empty = 0;
        if (slot.compare_exchange_strong(empty, group)) {
            return;
        }
    }
    // More helpers at once than slots: this one is only not killed on termination.
}

void unlist_group(pid_t group) {
    for (auto& slot : g_child_groups) {
        pid_t listed = group;
        if (slot.compare_exchange_strong(listed, 0)) {
            return;
        }
    }
}

void kill_groups_then_end(int sig) {
    kill_child_groups();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

// Blocks SIGINT, SIGTERM and SIGHUP in this thread while alive, so a child is listed before
// a termination signal can look for it.
class TerminationBlock {
  public:
    TerminationBlock() {
        sigset_t set;
        sigemptyset(&set);
        for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
            sigaddset(&set, sig);
        }
        pthread_sigmask(SIG_BLOCK, &set, &m_old);
    }
    ~TerminationBlock() { pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }
    TerminationBlock(const TerminationBlock&) = delete;
    TerminationBlock& operator=(const TerminationBlock&) = delete;

  private:
    sigset_t m_old;
};

// Start the child with default signal dispositions and an empty mask, in a session or a
// process group of its own when asked.
void set_child_attributes(posix_spawnattr_t* attr, bool new_session, bool own_group) {
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) {
        sigaddset(&defaults, sig);
    }
    sigset_t empty;
    sigemptyset(&empty);
    posix_spawnattr_setsigdefault(attr, &defaults);
    posix_spawnattr_setsigmask(attr, &empty);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    if (new_session) {
        flags |= POSIX_SPAWN_SETSID;
    } else if (own_group) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(attr, 0);
    }
    posix_spawnattr_setflags(attr, flags);
}

}  // namespace

Result<Process> Process::spawn(const SpawnOptions& options) {
    if (options.argv.empty()) {
        return error("cannot run a process with an empty command");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);

    Process proc;
    UniqueFd child_ends[3];
    UniqueFd* parent_ends[3] = {&proc.m_stdin, &proc.m_stdout, &proc.m_stderr};
    const Redirect* redirects[3] = {&options.stdin_from, &options.stdout_to, &options.stderr_to};
    auto cleanup = [&] {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        for (UniqueFd& fd : child_ends) {
            fd.reset();
        }
    };
    for (int i = 0; i < 3; ++i) {
        auto planned = plan_stream(&actions, *redirects[i], i, *parent_ends[i], child_ends[i]);
        if (!planned) {
            cleanup();
            return error(planned.error());
        }
    }
    if (!options.cwd.empty()) {
        posix_spawn_file_actions_addchdir_np(&actions, options.cwd.c_str());
    }

    set_child_attributes(&attr, options.new_session, options.own_group);
    proc.m_group = options.new_session || options.own_group;

    auto argv_strings = options.argv;
    auto argv = c_strings(argv_strings);
    auto env_strings = build_environment(options);
    auto envp = c_strings(env_strings);
    int rc = 0;
    {
        TerminationBlock block;
        rc = ::posix_spawnp(&proc.m_pid, argv[0], &actions, &attr, argv.data(), envp.data());
        if (rc == 0 && options.own_group && !options.new_session) {
            list_group(proc.m_pid);
            proc.m_listed = true;
        }
    }
    cleanup();
    if (rc != 0) {
        proc.close_all();
        return error(fmt::format("cannot run '{}': {}", options.argv[0], std::strerror(rc)));
    }
    if (proc.m_stdin) {
        ::fcntl(proc.m_stdin.get(), F_SETFL, ::fcntl(proc.m_stdin.get(), F_GETFL) | O_NONBLOCK);
    }
    return proc;
}

Process::Process(Process&& other) noexcept {
    *this = std::move(other);
}

Process& Process::operator=(Process&& other) noexcept {
    if (this != &other) {
        close_all();
        m_pid = std::exchange(other.m_pid, -1);
        m_group = other.m_group;
        m_listed = std::exchange(other.m_listed, false);
        m_stdin = std::move(other.m_stdin);
        m_stdout = std::move(other.m_stdout);
        m_stderr = std::move(other.m_stderr);
        m_status = other.m_status;
    }
    return *this;
}

Process::~Process() {
    close_all();
}

void Process::close_all() {
    m_stdin.reset();
    m_stdout.reset();
    m_stderr.reset();
}

void Process::close_stdin() {
    m_stdin.reset();
}

void Process::signal(int sig) const {
    if (m_pid <= 0 || m_status) {
        return;
    }
    if (m_group) {
        ::kill(-m_pid, sig);
    } else {
        ::kill(m_pid, sig);
    }
}

void Process::signal_group(int sig) const {
    if (m_pid > 0 && m_group) {
        ::kill(-m_pid, sig);
    }
}

void Process::reaped(int wstatus) {
    m_status = decode(wstatus);
    if (m_listed) {
        unlist_group(m_pid);
        m_listed = false;
    }
}

Result<ExitStatus> Process::wait() {
    if (m_status) {
        return *m_status;
    }
    int wstatus = 0;
    while (::waitpid(m_pid, &wstatus, 0) < 0) {
        if (errno != EINTR) {
            return error(fmt::format("waitpid({}): {}", m_pid, std::strerror(errno)));
        }
    }
    reaped(wstatus);
    return *m_status;
}

std::optional<ExitStatus> Process::try_wait() {
    if (m_status) {
        return m_status;
    }
    int wstatus = 0;
    pid_t rc = ::waitpid(m_pid, &wstatus, WNOHANG);
    if (rc == m_pid) {
        reaped(wstatus);
    }
    return m_status;
}

void kill_child_groups() {
    for (auto& slot : g_child_groups) {
        pid_t group = slot.load();
        if (group > 0) {
            ::kill(-group, SIGKILL);
        }
    }
}

void kill_child_groups_on_termination() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction action {};
        action.sa_handler = kill_groups_then_end;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        ::sigaction(sig, &action, nullptr);
    }
}

std::optional<std::string> find_executable(const std::string& name) {
    if (name.empty()) {
        return std::nullopt;
    }
    auto is_exec = [](const std::string& path) {
        struct stat st {};
        return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
               ::access(path.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string::npos) {
        return is_exec(name) ? std::optional<std::string>(name) : std::nullopt;
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) {
            end = dirs.size();
        }
        std::string dir = dirs.substr(start, end - start);
        std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
        if (is_exec(candidate)) {
            return candidate;
        }
        start = end + 1;
    }
    return std::nullopt;
}

std::string format_argv(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& arg : argv) {
        if (!out.empty()) {
            out += ' ';
        }
        bool plain =
            !arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
        if (plain) {
            out += arg;
        } else {
            out += '\'';
            for (char c : arg) {
                out += c == '\'' ? std::string("'\\''") : std::string(1, c);
            }
            out += '\'';
        }
    }
    return out;
}

}  // namespace kftrain::util
