// Ctrl-C is always safe: the first SIGINT or SIGTERM during `run` or `fuzz` only records the
// signal; the run stops starting cases, the cases in flight stop before their next step, and
// the reports of what ran are written (marked interrupted) before the command exits with
// 128 + the signal number (130 for SIGINT, 143 for SIGTERM). A second signal exits at once.
#pragma once

#include <atomic>

namespace ac::cli {

// Installs the handlers; returns the flag they set (the signal number, 0 while none came).
const std::atomic<int>& catch_interrupts();

// The exit code of an interrupted command: 128 + signal.
int interrupted_exit_code(int signal_number);

}  // namespace ac::cli
