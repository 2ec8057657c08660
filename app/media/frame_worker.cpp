#include "app/media/frame_worker.hpp"

namespace vf::media {

FrameWorker::FrameWorker(Job job, int depth)
    : job_(std::move(job)), depth_(static_cast<std::size_t>(depth)), thread_([this] { loop(); }) {}

FrameWorker::~FrameWorker() {
  {
    std::lock_guard<std::mutex> l(m_);
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

FramePtr FrameWorker::acquire() {
  std::unique_lock<std::mutex> l(m_);
  cv_.wait(l, [&] { return error_ || queue_.size() < depth_; });
  if (error_) std::rethrow_exception(error_);
  if (pool_.empty()) return nullptr;
  FramePtr f = std::move(pool_.back());
  pool_.pop_back();
  return f;
}

void FrameWorker::submit(FramePtr frame) {
  {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return error_ || queue_.size() < depth_; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back(std::move(frame));
  }
  cv_.notify_all();
}

void FrameWorker::finish() {
  {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return error_ || (queue_.empty() && !busy_); });
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> l(m_);
  if (error_) std::rethrow_exception(error_);
}

std::exception_ptr FrameWorker::error() const {
  std::lock_guard<std::mutex> l(m_);
  return error_;
}

void FrameWorker::loop() {
  for (;;) {
    FramePtr f;
    {
      std::unique_lock<std::mutex> l(m_);
      cv_.wait(l, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      f = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    std::exception_ptr err;
    if (!error()) {
      try {
        job_(f.get());
      } catch (...) {
        err = std::current_exception();
      }
    }
    {
      std::lock_guard<std::mutex> l(m_);
      if (err && !error_) error_ = err;
      // No more than are ever in use at once (the queue, the one encoding, the one being
      // filled): frames submitted without one from the pool (a constant-rate output's repeats)
      // do not grow it.
      if (pool_.size() < depth_ + 2) pool_.push_back(std::move(f));
      busy_ = false;
    }
    cv_.notify_all();
  }
}

}  // namespace vf::media
