#pragma once

namespace kftrain::trainer::process {

// Exit code after a SIGTERM stop (a checkpoint was written when a directory was given).
constexpr int k_exit_terminated = 143;

// Install SIGTERM and SIGINT handlers that only record the request.
void install_stop_handlers();

// Tell whether SIGTERM or SIGINT arrived since the handlers were installed.
bool stop_requested();

// Return the signal that was received (0 when none).
int stop_signal();

}  // namespace kftrain::trainer::process
