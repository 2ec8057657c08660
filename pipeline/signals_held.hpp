#pragma once
// Work whose child processes must not get the terminal's stop signals. A Ctrl-C goes to the
// whole foreground process group, the compilers and linkers an OpenCL driver runs included
// (PoCL runs the linker for each kernel; one killed mid-link made PoCL abort the process). A
// child process starts with the signal mask of the thread that started it, so such work runs
// on a thread of its own with SIGINT, SIGTERM and SIGHUP blocked: so do the threads it starts
// (a driver's workers, made as its device opens) and their children, who finish their work
// while the program's own threads take the signal. The calling thread waits, taking signals as
// before (a second Ctrl-C still quits at once).
#include <pthread.h>
#include <signal.h>

#include <exception>
#include <optional>
#include <thread>
#include <utility>

namespace vf {

// Runs `work` so, and returns what it returns or throws what it throws.
template <typename F>
auto withStopSignalsHeld(F&& work) -> decltype(work()) {
  std::optional<decltype(work())> result;
  std::exception_ptr error;
  std::thread t([&] {
    sigset_t stops;
    sigemptyset(&stops);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
    pthread_sigmask(SIG_BLOCK, &stops, nullptr);
    try {
      result.emplace(work());
    } catch (...) {
      error = std::current_exception();
    }
  });
  t.join();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

}  // namespace vf
