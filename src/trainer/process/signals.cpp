#include "trainer/process/signals.h"

#include <csignal>

namespace kftrain::trainer::process {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void on_signal(int sig) {
    g_signal = sig;
}

}  // namespace

void install_stop_handlers() {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
}

bool stop_requested() {
    return g_signal != 0;
}

int stop_signal() {
    return g_signal;
}

}  // namespace kftrain::trainer::process
