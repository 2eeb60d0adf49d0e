#include "util/signals/signal_free_thread.h"

#include <signal.h>

#include <utility>

namespace kftrain::util {

std::thread signal_free_thread(std::function<void()> body) {
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  // the new thread inherits this mask
    std::thread thread(std::move(body));
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return thread;
}

}  // namespace kftrain::util
