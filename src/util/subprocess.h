#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
    int stdin_fd() const { return m_stdin; }
    int stdout_fd() const { return m_stdout; }
    int stderr_fd() const { return m_stderr; }

    // Close the write end of the child's stdin.
    void close_stdin();
    // Send a signal to the child (to its whole group when it has its own session).
    void signal(int sig) const;
    // Wait for the child to end, retrying on EINTR.
    Result<ExitStatus> wait();
    // Return the exit status if the child has ended, without blocking.
    std::optional<ExitStatus> try_wait();

  private:
    Process() = default;
    void close_all();

    pid_t m_pid = -1;
    bool m_group = false;
    int m_stdin = -1;
    int m_stdout = -1;
    int m_stderr = -1;
    std::optional<ExitStatus> m_status;
};

// Options for run(): a process with its stdin given, its output collected.
struct RunOptions {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;
    std::string input;                                 // written to stdin, then closed
    std::optional<std::chrono::milliseconds> timeout;  // then SIGKILL
    const std::atomic<bool>* cancel = nullptr;  // when it turns true: SIGKILL (seen within 100 ms)
};

// What run() collected.
struct RunResult {
    ExitStatus status;
    std::string out;
    std::string err;
    bool timed_out = false;
    bool cancelled = false;  // killed because cancel turned true
};

// Called with each complete line (without its newline) as it arrives.
using LineCallback = std::function<void(const std::string& line)>;

// Run a process to completion, reading stdout and stderr separately.
Result<RunResult> run(const RunOptions& options);

// Run a process, calling on_out/on_err for each line as it arrives; the lines
// are not kept in the result. A callback may be empty to collect that stream.
Result<RunResult> run_streaming(const RunOptions& options, const LineCallback& on_out,
                                const LineCallback& on_err);

// Find an executable on PATH (or check a path with a slash); nullopt if none.
std::optional<std::string> find_executable(const std::string& name);

// Format argv as a single line for logging.
std::string format_argv(const std::vector<std::string>& argv);

}  // namespace kftrain::util
