#include "harness/cli/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include "harness/util/child_process.hpp"

namespace ac::cli {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler may only touch a lock-free atomic");

extern "C" void on_signal(int sig) {
  int expected = 0;
  if (!g_signal.compare_exchange_strong(expected, sig)) {  // the second one: now, with any client under test
    ChildProcess::kill_all_children();
    _exit(128 + sig);
  }
  static const char note[] = "\nagentconform: interrupted; finishing the cases in flight and writing the reports (again to quit now)\n";
  const ssize_t ignored = ::write(STDERR_FILENO, note, sizeof note - 1);
  (void)ignored;
}

}  // namespace

const std::atomic<int>& catch_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_signal;
}

int interrupted_exit_code(int signal_number) { return 128 + signal_number; }

}  // namespace ac::cli
