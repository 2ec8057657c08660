// Work run with the stop signals held (device opens, program builds): it runs on a thread that
// blocks SIGINT, SIGTERM and SIGHUP while the caller's own mask stays as it was; its result and
// its exceptions come back to the caller; and the thread ends with the alternate signal stack it
// began with, whatever stack the work (LLVM inside PoCL) gave it.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "pipeline/signals_held.hpp"

namespace {

stack_t currentAltStack() {
  stack_t s{};
  EXPECT_EQ(sigaltstack(nullptr, &s), 0);
  return s;
}

bool blocked(int sig) {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&mask, sig) == 1;
}

// What LLVM does on the first thread that asks it to remove a file on a signal: a stack of its
// own, from malloc, installed on that thread.
std::vector<char>& installForeignAltStack() {
  static thread_local std::vector<char> stack(1 << 17);
  stack_t s{};
  s.ss_sp = stack.data();
  s.ss_size = stack.size();
  EXPECT_EQ(sigaltstack(&s, nullptr), 0);
  return stack;
}

TEST(SignalsHeld, AltStackKeptPutsBackTheStackTheThreadBeganWith) {
  std::thread([] {
    const stack_t before = currentAltStack();
    {
      const vf::AltStackKept kept;
      const std::vector<char>& foreign = installForeignAltStack();
      EXPECT_EQ(currentAltStack().ss_sp, foreign.data());
    }
    const stack_t after = currentAltStack();
    EXPECT_EQ(after.ss_sp, before.ss_sp);
    EXPECT_EQ(after.ss_size, before.ss_size);
    EXPECT_EQ(after.ss_flags, before.ss_flags);
  }).join();
}

TEST(SignalsHeld, WorkRunsWithTheStopSignalsBlockedAndTheCallersMaskStays) {
  sigset_t none;
  sigemptyset(&none);
  sigset_t callers;
  pthread_sigmask(SIG_SETMASK, &none, &callers);
  bool int_ = false, term = false, hup = false, quit = true;
  const int got = vf::withStopSignalsHeld([&] {
    int_ = blocked(SIGINT);
    term = blocked(SIGTERM);
    hup = blocked(SIGHUP);
    quit = blocked(SIGQUIT);
    return 41 + 1;
  });
  EXPECT_EQ(got, 42);
  EXPECT_TRUE(int_);
  EXPECT_TRUE(term);
  EXPECT_TRUE(hup);
  EXPECT_FALSE(quit);
  EXPECT_FALSE(blocked(SIGINT));
  EXPECT_FALSE(blocked(SIGTERM));
  pthread_sigmask(SIG_SETMASK, &callers, nullptr);
}

TEST(SignalsHeld, TheWorksExceptionReachesTheCaller) {
  EXPECT_THROW(vf::withStopSignalsHeld([]() -> int { throw std::runtime_error("no device"); }),
               std::runtime_error);
}

// Under AddressSanitizer the thread's end unmaps the stack it finds installed: were the work's
// stack left there, the process would abort here.
TEST(SignalsHeld, WorkThatGivesTheThreadAStackOfItsOwnEndsCleanly) {
  const void* seenInWork = nullptr;
  const stack_t callers = currentAltStack();
  vf::withStopSignalsHeld([&] {
    seenInWork = installForeignAltStack().data();
    return 0;
  });
  EXPECT_NE(seenInWork, nullptr);
  EXPECT_EQ(currentAltStack().ss_sp, callers.ss_sp);
}

}  // namespace
