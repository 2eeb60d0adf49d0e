#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/app.h"
#include "util/subprocess.h"

int main(int argc, char** argv) {
    // Ctrl-C, SIGTERM and SIGHUP end kubectl and whatever it started along with kftrain.
    kftrain::util::kill_child_groups_on_termination();
    std::vector<std::string> args(argv + 1, argv + argc);
    // Run as kubectl-kftrain (kubectl's plugin), it calls itself "kubectl kftrain" in help.
    const std::string program = kftrain::cli::program_name(argc > 0 ? argv[0] : "kftrain");
    int code = kftrain::cli::run_cli(args, std::cout, std::cerr, program);
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
        const int saved = errno;
        std::cerr << "kftrain: error: cannot write to standard output: "
                  << (saved != 0 ? std::strerror(saved) : "write failed") << "\n";
        return code != 0 ? code : 1;
    }
    return code;
}
