#include "support/pty_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>

#include "support/paths.h"
#include "util/subprocess.h"

namespace kftrain::test {
namespace {

// Both ends of a pseudo-terminal, closed when done.
struct Pty {
    int master = -1;
    int slave = -1;  // held open so that reading the master never fails while kftrain starts
    std::string slave_path;

    ~Pty() {
        for (int fd : {master, slave}) {
            if (fd >= 0) {
                ::close(fd);
            }
        }
    }
};

void open_pty(Pty& pty, unsigned short columns) {
    pty.master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    REQUIRE(pty.master >= 0);
    REQUIRE(::grantpt(pty.master) == 0);
    REQUIRE(::unlockpt(pty.master) == 0);
    char name[128];
    REQUIRE(::ptsname_r(pty.master, name, sizeof(name)) == 0);
    pty.slave_path = name;
    struct winsize size {};
    size.ws_row = 40;
    size.ws_col = columns;
    REQUIRE(::ioctl(pty.master, TIOCSWINSZ, &size) == 0);
    pty.slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    REQUIRE(pty.slave >= 0);
}

// Read what is there within wait_ms; return false when nothing was.
bool read_some(int fd, int wait_ms, std::string& out) {
    struct pollfd poll_fd {
        fd, POLLIN, 0
    };
    if (::poll(&poll_fd, 1, wait_ms) <= 0) {
        return false;
    }
    char buffer[4096];
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n <= 0) {
        return false;
    }
    out.append(buffer, static_cast<size_t>(n));
    return true;
}

}  // namespace

PtyRun run_kftrain_on_pty(const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env, unsigned short columns,
                          const std::function<void(const std::string&)>& on_output) {
    Pty pty;
    open_pty(pty, columns);
    util::SpawnOptions options;
    options.argv.push_back(kftrain::test::kftrain_binary());
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.env = env;
    options.stdout_to = util::Redirect::file(pty.slave_path);
    options.stderr_to = util::Redirect::file(pty.slave_path);
    auto process = util::Process::spawn(options);
    REQUIRE(process.ok());
    PtyRun run;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (true) {
        if (read_some(pty.master, 100, run.out) && on_output) {
            on_output(run.out);
        }
        if (auto ended = process->try_wait()) {
            // With no writer left the master reads what remains, then fails: the end.
            ::close(pty.slave);
            pty.slave = -1;
            while (read_some(pty.master, 5000, run.out)) {
            }
            run.code = ended->as_shell_code();
            return run;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            process->signal(SIGKILL);
            (void)process->wait();
            FAIL("kftrain " << util::format_argv(args) << " ran past a minute; it wrote:\n"
                            << run.out);
        }
    }
}

}  // namespace kftrain::test
