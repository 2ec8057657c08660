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

// Puts back, as it ends, the alternate signal stack that the thread had when it began. Driver
// work may leave the thread one of its own: LLVM, which PoCL compiles with, gives one (from
// malloc) to the first thread that asks it to remove a file on a signal. A runtime that frees the
// thread's stack as the thread ends must find its own there: AddressSanitizer unmaps it, and
// aborts the process when the stack is not one it mapped.
class AltStackKept {
 public:
  AltStackKept() : kept_(sigaltstack(nullptr, &own_) == 0) {}
  ~AltStackKept() {
    if (kept_) sigaltstack(&own_, nullptr);
  }
  AltStackKept(const AltStackKept&) = delete;
  AltStackKept& operator=(const AltStackKept&) = delete;

 private:
  stack_t own_{};
  bool kept_;
};

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
    const AltStackKept altStack;
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
