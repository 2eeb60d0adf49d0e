#include "util/signals/interrupt.h"

#include <atomic>
#include <csignal>
#include <initializer_list>

namespace kftrain::util {
namespace {

// Lock-free, so that the handler may touch them.
std::atomic<unsigned> g_count{0};
std::atomic<int> g_last{0};  // the last signal caught, 0 for none
std::atomic<bool> g_calls_stop{false};
static_assert(std::atomic<unsigned>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

void on_interrupt(int signal) {
    g_last.store(signal);
    g_count.fetch_add(1);
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
    g_calls_stop = true;
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
        catch_signal(signal);
    }
}

bool interrupt_requested() {
    return g_count.load() != 0;
}

unsigned interrupt_count() {
    return g_count.load();
}

bool calls_stop_on_interrupt() {
    return g_calls_stop.load();
}

const char* interrupt_name() {
    switch (g_last.load()) {
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

}  // namespace kftrain::util
