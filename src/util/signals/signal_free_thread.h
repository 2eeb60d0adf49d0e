#pragma once

#include <functional>
#include <thread>

namespace kftrain::util {

// Start a thread with every signal blocked in it, so that a signal sent to the process is
// taken by the thread that handles it (the main one), never by a server's helper thread.
std::thread signal_free_thread(std::function<void()> body);

}  // namespace kftrain::util
