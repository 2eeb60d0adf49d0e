#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/fd/unique_fd.h"
#include "util/result.h"

namespace kftrain::util {

// Where a child's standard stream goes.
struct Redirect {
    enum class Kind { Pipe, Inherit, Null, File };
    Kind kind = Kind::Pipe;
    std::string path;  // for File: appended to, created with mode 0644

    static Redirect pipe() { return {Kind::Pipe, {}}; }
    static Redirect inherit() { return {Kind::Inherit, {}}; }
    static Redirect null() { return {Kind::Null, {}}; }
    static Redirect file(std::string p) { return {Kind::File, std::move(p)}; }
};

// How to start a process. The argv is passed as is: never through a shell.
struct SpawnOptions {
    std::vector<std::string> argv;           // argv[0] is looked up on PATH
    std::map<std::string, std::string> env;  // set on top of the inherited environment
    std::vector<std::string> unset_env;      // removed from the inherited environment
    std::string cwd;                         // empty: the caller's
    Redirect stdin_from = Redirect::null();  // Pipe: write with Process::stdin_fd()
    Redirect stdout_to = Redirect::pipe();
    Redirect stderr_to = Redirect::pipe();
    bool new_session = false;  // setsid(): own session and process group
    // Own process group in this session, killed whole by kill_child_groups() until waited
    // for: for helpers such as kubectl that must not outlive this process.
    bool own_group = false;
};

// How a process ended.
struct ExitStatus {
    int code = -1;   // exit code when it exited
    int signal = 0;  // signal number when a signal ended it

    // Return whether it exited with code 0.
    bool success() const { return signal == 0 && code == 0; }
    // Return the shell convention: the code, or 128 + signal.
    int as_shell_code() const { return signal != 0 ? 128 + signal : code; }
    // Describe it for a message: "exit code 1" or "signal 9 (Killed)".
    std::string describe() const;
};

// A running child process. Movable, not copyable; the destructor closes pipes
// but neither waits for nor kills the child.
class Process {
  public:
    // Start a process as the options say.
    static Result<Process> spawn(const SpawnOptions& options);

    Process(Process&& other) noexcept;
    Process& operator=(Process&& other) noexcept;
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;
    ~Process();

    pid_t pid() const { return m_pid; }
    int stdin_fd() const { return m_stdin.get(); }
    int stdout_fd() const { return m_stdout.get(); }
    int stderr_fd() const { return m_stderr.get(); }

    // Close the write end of the child's stdin.
    void close_stdin();
    // Send a signal to the child (to its whole group when it has its own session or group),
    // while it has not been waited for.
    void signal(int sig) const;
    // Send a signal to the child's group (it has its own session or group), also after the
    // child itself ended: to whatever it left behind.
    void signal_group(int sig) const;
    // Wait for the child to end, retrying on EINTR.
    Result<ExitStatus> wait();
    // Return the exit status if the child has ended, without blocking.
    std::optional<ExitStatus> try_wait();

  private:
    Process() = default;
    void close_all();
    void reaped(int wstatus);

    pid_t m_pid = -1;
    bool m_group = false;
    bool m_listed = false;  // in the table kill_child_groups() reads
    UniqueFd m_stdin;
    UniqueFd m_stdout;
    UniqueFd m_stderr;
    std::optional<ExitStatus> m_status;
};

// Kill (SIGKILL) the process group of every child started with own_group that has not been
// waited for. Async-signal-safe.
void kill_child_groups();

// Make SIGINT, SIGTERM and SIGHUP first kill those groups, then end this process as they would
// have: for a program whose helpers must not outlive it (Ctrl-C on the kftrain CLI). A handler
// installed later for one of them (to stop gracefully) replaces this one.
void kill_child_groups_on_termination();

// Find an executable on PATH (or check a path with a slash); nullopt if none.
std::optional<std::string> find_executable(const std::string& name);

// Format argv as a single line for logging.
std::string format_argv(const std::vector<std::string>& argv);

}  // namespace kftrain::util
