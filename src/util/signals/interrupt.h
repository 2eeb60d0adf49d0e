#pragma once

namespace kftrain::util {

// Catch SIGINT from now on, to be seen with interrupt_requested() (for
// `submit --follow --stop-on-interrupt`); without it Ctrl-C ends kftrain.
void catch_interrupts();

// Catch SIGINT, SIGTERM and SIGHUP from now on: for verbs that own something to clean up (a
// helper pod) and check interrupt_requested() wherever they wait, so that a CI job's timeout
// or a closed terminal cleans up as Ctrl-C does. Their kubectl calls stop at such a signal (exit
// 130), so a hanging call never holds them up.
void catch_termination();

// Return whether a caught signal arrived since catch_interrupts() or catch_termination().
bool interrupt_requested();

// Return how many caught signals have arrived: something that started at count N stops when
// the count moves on.
unsigned interrupt_count();

// Return whether kubectl calls (KubectlRunner::run) stop at a signal caught after they start:
// true after catch_termination(), whose verbs check interrupt_requested() after each call.
bool calls_stop_on_interrupt();

// Return how the caught signal reads in messages: "an interrupt (Ctrl-C)" for SIGINT,
// "SIGTERM", "SIGHUP"; "an interrupt" when none was caught.
const char* interrupt_name();

}  // namespace kftrain::util
