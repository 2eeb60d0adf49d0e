#include "cli/job/interrupt.h"

#include <csignal>

namespace kftrain::cli::job {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int) {
    g_interrupted = 1;
}

}  // namespace

void catch_interrupts() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
}

bool interrupt_requested() {
    return g_interrupted != 0;
}

}  // namespace kftrain::cli::job
