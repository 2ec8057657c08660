#pragma once
// A line for a wait that may take long: said once, from a thread of its own, if the wait
// outlasts a time; nothing if it ends before.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace vf::app {

// Runs `say` once if it is still alive after `after`, from its own thread; the destructor ends
// the wait.
class WaitNotice {
 public:
  WaitNotice(std::chrono::steady_clock::duration after, std::function<void()> say)
      : thread_([this, after, say = std::move(say)] {
          std::unique_lock<std::mutex> lock(m_);
          if (!cv_.wait_for(lock, after, [this] { return done_; })) say();
        }) {}
  ~WaitNotice() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  WaitNotice(const WaitNotice&) = delete;
  WaitNotice& operator=(const WaitNotice&) = delete;

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace vf::app
