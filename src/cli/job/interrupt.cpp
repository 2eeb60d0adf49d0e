#include "cli/job/interrupt.h"

#include <atomic>
#include <csignal>
#include <initializer_list>

namespace kftrain::cli::job {
namespace {

// Lock-free, so that the handler may touch them.
std::atomic<unsigned> g_count{0};
std::atomic<bool> g_calls_stop{false};
static_assert(std::atomic<unsigned>::is_always_lock_free);

void on_interrupt(int) {
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

}  // namespace kftrain::cli::job
