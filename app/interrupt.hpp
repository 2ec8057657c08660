#pragma once
// Signals. SIGINT, SIGTERM and SIGHUP: the first asks for a clean stop (the watcher thread polls
// interruptSignal() and calls Engine::stop(), so nothing but an atomic store happens inside the
// handler); a second, a second or more after the first, exits at once with _exit(128 + signal)
// (one sooner is the same request: a process group's echo, or a double Ctrl-C). The handlers are
// installed without SA_RESTART, so a blocking open() or read() (a FIFO nobody writes to) returns
// EINTR at the first signal instead of being resumed; openInterruptibly() turns whatever error
// follows into Interrupted. SIGPIPE is ignored: a progress line or summary written into `| head`
// fails (EPIPE) and the run goes on to close its output. SIGXFSZ is ignored: a write beyond `ulimit
// -f` fails with EFBIG ("File too large"), which the writer reports, instead of the signal killing
// the process mid-file. SIGQUIT keeps its default (quit at once). A SIGINT or SIGHUP that the
// parent set to be ignored (nohup; a background job in a script) stays ignored.
#include <pthread.h>

#include <stdexcept>
#include <string>

namespace vf::app {

void installInterruptHandlers();
// The OpenCL CPU device's compiler (LLVM, inside PoCL) installs its own handlers when the
// device opens; for SIGQUIT it removes its temporary files and then lets the process carry
// on. Called once the device is open, this gives SIGQUIT back the disposition it had when
// installInterruptHandlers() (or rememberSigquit(), where a program installs none) ran: the
// default, quit at once.
void keepSigquitDefault();
// Notes SIGQUIT's disposition now, for keepSigquitDefault (installInterruptHandlers does).
void rememberSigquit();
// The first signal received (SIGINT, SIGTERM, SIGHUP), or 0.
int interruptSignal();
// A stop for a cause that is no signal (the preview's display went away), taken as the first
// signal `sig` would be: the run closes its outputs with the frames done. No effect after one.
void requestStop(int sig);
// Whether the first stop was requestStop's (the cause already said), not a signal's.
bool stopRequested();
// Makes a call blocked in `thread` return EINTR (SIGURG, whose handler does nothing, installed
// by installInterruptHandlers without SA_RESTART): the signal a process gets reaches one of its
// threads, and another one may be blocked opening a FIFO nobody writes to.
void wakeThread(pthread_t thread);
// "SIGINT", "SIGTERM", "SIGHUP".
const char* signalName(int sig);
// What the signal means to a user: "interrupted", "terminated", "hung up".
const char* signalVerb(int sig);
// How the user gives the signal `sig` again: "Ctrl-C again" for SIGINT, "another SIGTERM", ...
std::string signalAgain(int sig);

// Start-up (config file, input, output) cut short by a signal: exit status 128 + signal.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig)
      : std::runtime_error(std::string("stopped by ") + signalName(sig) +
                           " before the first frame"),
        signal_(sig) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// While one of these lives, a signal ends the process at once, from the handler, with the
// message "stopped by SIG... before the first frame" and status 128 + signal: for opens that
// may block inside a library that retries after EINTR (FFmpeg reading a FIFO nobody writes
// to) and that create nothing a stop would have to finish (the config file, the input).
class ExitOnSignal {
 public:
  ExitOnSignal();
  ~ExitOnSignal();
  ExitOnSignal(const ExitOnSignal&) = delete;
  ExitOnSignal& operator=(const ExitOnSignal&) = delete;
};

// Runs `open` (config file, input) so that a signal during it ends the process at once; one
// that came before it throws Interrupted without starting it.
template <typename F>
auto openOrExitOnSignal(F&& open) -> decltype(open()) {
  if (const int sig = interruptSignal()) throw Interrupted(sig);
  ExitOnSignal zone;
  return open();
}

// Runs an open that may block and may create something (the output): a signal makes the
// blocked call return EINTR, and whatever `open` then throws is the interruption.
template <typename F>
auto openInterruptibly(F&& open) -> decltype(open()) {
  if (const int sig = interruptSignal()) throw Interrupted(sig);
  try {
    return open();
  } catch (...) {
    if (const int sig = interruptSignal()) throw Interrupted(sig);
    throw;
  }
}

}  // namespace vf::app
