#pragma once
// A thread that encodes and writes frames while the engine's sink thread converts the next
// ones: frames go through a short queue (a few frames: it bounds the memory and makes the
// engine wait when the encoder is the slowest part), and come back to a pool for reuse.
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "app/media/av.hpp"

namespace vf::media {

class FrameWorker {
 public:
  using Job = std::function<void(AVFrame*)>;
  explicit FrameWorker(Job job, int depth = 3);
  ~FrameWorker();
  FrameWorker(const FrameWorker&) = delete;
  FrameWorker& operator=(const FrameWorker&) = delete;

  // A frame from the pool (nullptr when the pool is empty: allocate one and hand it to
  // submit()). Waits while `depth` frames are queued. Rethrows the job's first error.
  FramePtr acquire();
  // Queues a frame for the job; waits, as acquire(), while `depth` frames are queued.
  void submit(FramePtr frame);
  // Waits for every submitted frame, stops the thread. Rethrows the job's first error.
  void finish();
  std::exception_ptr error() const;

 private:
  void loop();

  Job job_;
  std::size_t depth_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::deque<FramePtr> queue_;
  std::vector<FramePtr> pool_;
  bool closing_ = false, busy_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace vf::media
