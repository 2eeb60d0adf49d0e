#include "cli/job/interrupt.h"

#include <csignal>
#include <initializer_list>

namespace kftrain::cli::job {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;  // the last signal caught, 0 for none

void on_interrupt(int signal) {
    g_interrupted = signal;
}

void catch_signal(int signal) {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
}

}  // namespace

void catch_interrupts() {
    catch_signal(SIGINT);
}

void catch_termination() {
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
        catch_signal(signal);
    }
}

bool interrupt_requested() {
    return g_interrupted != 0;
}

const char* interrupt_name() {
    switch (g_interrupted) {
        case SIGINT:
            return "an interrupt (Ctrl-C)";
        case SIGTERM:
            return "SIGTERM";
        case SIGHUP:
            return "SIGHUP";
        default:
            return "an interrupt";
    }
}

}  // namespace kftrain::cli::job
