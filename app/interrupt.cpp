#include "app/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace vf::app {

namespace {
std::atomic<int> gSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

extern "C" void onInterrupt(int sig) {
  int expected = 0;
  if (gSignal.compare_exchange_strong(expected, sig)) return;
  // Second signal: the user means it. Only async-signal-safe calls from here on.
  static const char msg[] = "\nvidfilter: interrupted again; exiting at once\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  ::_exit(128 + sig);
}
}  // namespace

void installInterruptHandlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int interruptSignal() { return gSignal.load(); }

}  // namespace vf::app
