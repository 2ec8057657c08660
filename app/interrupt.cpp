#include "app/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>

namespace vf::app {

namespace {
std::atomic<int> gSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

std::atomic<long long> gFirstAt{0};  // CLOCK_MONOTONIC of the first signal, ns
static_assert(std::atomic<long long>::is_always_lock_free, "used from a signal handler");

std::atomic<int> gExitZones{0};  // ExitOnSignal objects alive
static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

std::atomic<bool> gRequested{false};  // the first stop was requestStop's, no signal

void writeStderr(const char* text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));  // strlen: signal-safe
  (void)ignored;
}

// CLOCK_MONOTONIC now, ns (async-signal-safe).
long long monotonicNs() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

// Takes `sig` as the first stop, at `ns`; false when there was one already.
bool takeFirstStop(int sig, long long ns) {
  int expected = 0;
  if (!gSignal.compare_exchange_strong(expected, sig)) return false;
  gFirstAt.store(ns);
  return true;
}

extern "C" void onInterrupt(int sig) {
  if (gExitZones.load() > 0) {  // nothing to finish: end now (async-signal-safe calls only)
    writeStderr(sig == SIGTERM  ? "vidfilter: warning: stopped by SIGTERM before the first frame\n"
                : sig == SIGHUP ? "vidfilter: warning: stopped by SIGHUP before the first frame\n"
                                : "vidfilter: warning: stopped by SIGINT before the first frame\n");
    ::_exit(128 + sig);
  }
  const long long ns = monotonicNs();
  if (takeFirstStop(sig, ns)) return;
  // A stop signal within a second of the first is the same stop request, not a second one:
  // `timeout` and `kill -- -PGID` signal the process and then its whole group, microseconds
  // apart; a wrapper that forwards its own SIGTERM after the terminal's SIGINT reaches the
  // process a few milliseconds after it; and a person's double Ctrl-C comes before the warning
  // that a second one quits without closing the outputs could be read.
  const long long first = gFirstAt.load();
  if (first == 0) return;
  if (ns - first < 1000000000LL) {
    // A person's press (a group's echo comes within microseconds): said once.
    static std::atomic<bool> told{false};
    if (ns - first > 50000000LL && !told.exchange(true))
      writeStderr("\nvidfilter: already stopping; a Ctrl-C a second from now quits at once\n");
    return;
  }
  // Second signal: the user means it. Only async-signal-safe calls from here on.
  writeStderr(
      "\nvidfilter: interrupted again; exiting at once (outputs not closed yet may not play)\n");
  ::_exit(128 + sig);
}

extern "C" void onWake(int /*sig*/) {}

// SIGQUIT's disposition when the program started (the default, or ignored by the parent).
struct sigaction gQuitAtStart;
bool gQuitSaved = false;

bool inheritedIgnore(int sig) {
  struct sigaction old;
  std::memset(&old, 0, sizeof old);
  return sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN;
}
}  // namespace

void requestStop(int sig) {
  if (takeFirstStop(sig, monotonicNs())) gRequested.store(true);
}

bool stopRequested() { return gRequested.load(); }

void rememberSigquit() { gQuitSaved = sigaction(SIGQUIT, nullptr, &gQuitAtStart) == 0; }

void installInterruptHandlers() {
  rememberSigquit();
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked open() or read() ends at the first signal
  for (int sig : {SIGINT, SIGHUP})
    if (!inheritedIgnore(sig)) sigaction(sig, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sa.sa_handler = onWake;
  sigaction(SIGURG, &sa, nullptr);

  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

void keepSigquitDefault() {
  if (gQuitSaved) sigaction(SIGQUIT, &gQuitAtStart, nullptr);
}

int interruptSignal() { return gSignal.load(); }

void wakeThread(pthread_t thread) { pthread_kill(thread, SIGURG); }

ExitOnSignal::ExitOnSignal() { gExitZones.fetch_add(1); }
ExitOnSignal::~ExitOnSignal() { gExitZones.fetch_sub(1); }

const char* signalName(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

const char* signalVerb(int sig) {
  switch (sig) {
    case SIGTERM:
      return "terminated";
    case SIGHUP:
      return "hung up";
    default:
      return "interrupted";
  }
}

std::string signalAgain(int sig) {
  return sig == SIGINT ? "Ctrl-C again" : std::string("another ") + signalName(sig);
}

}  // namespace vf::app
