#include "util/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace kftrain::util {
namespace {

constexpr size_t k_default_width = 80;

// The file descriptor behind stream: 1 for std::cout, 2 for std::cerr, else none (a string
// stream in a test).
int descriptor_of(const std::ostream& stream) {
    if (&stream == &std::cout) {
        return STDOUT_FILENO;
    }
    if (&stream == &std::cerr) {
        return STDERR_FILENO;
    }
    return -1;
}

}  // namespace

bool is_live_terminal(const std::ostream& stream) {
    const int fd = descriptor_of(stream);
    if (fd < 0 || ::isatty(fd) != 1) {
        return false;
    }
    const char* term = std::getenv("TERM");
    return term == nullptr || std::strcmp(term, "dumb") != 0;
}

size_t terminal_width(const std::ostream& stream) {
    std::optional<size_t> reported;
    struct winsize size {};
    const int fd = descriptor_of(stream);
    if (fd >= 0 && ::ioctl(fd, TIOCGWINSZ, &size) == 0) {
        reported = size.ws_col;
    }
    return choose_width(reported, std::getenv("COLUMNS"));
}

size_t choose_width(std::optional<size_t> reported, const char* columns) {
    if (reported && *reported > 0) {
        return *reported;
    }
    if (columns != nullptr) {
        char* end = nullptr;
        const long value = std::strtol(columns, &end, 10);
        if (end != columns && *end == '\0' && value > 0 && value <= 10000) {
            return static_cast<size_t>(value);
        }
    }
    return k_default_width;
}

}  // namespace kftrain::util
