#pragma once

namespace kftrain::cli::job {

// Catch SIGINT from now on, to be seen with interrupt_requested() (for
// `submit --follow --stop-on-interrupt`); without it Ctrl-C ends kftrain.
void catch_interrupts();

// Return whether SIGINT arrived since catch_interrupts().
bool interrupt_requested();

}  // namespace kftrain::cli::job
