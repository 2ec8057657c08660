#include "app/playback.hpp"

#include <thread>

namespace vf::app {

PlaybackSource::PlaybackSource(CaptureSource& inner, Options options)
    : inner_(inner), opts_(options), seekable_(opts_.seekable && inner.seekable()) {
  if (opts_.paceFps > 0)
    period_ = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / opts_.paceFps));
}

void PlaybackSource::seek(double seconds) {
  if (!seekable_) return;
  inner_.requestSeek(seconds < 0 ? 0 : seconds);
  {
    std::lock_guard<std::mutex> lock(mu_);
    seekCame_ = true;
    restartPace_ = true;
  }
  cv_.notify_all();
}

// When the consumer falls behind (a paused preview) or after a seek, the schedule restarts
// instead of bursting to catch up.
void PlaybackSource::pace() {
  if (period_ == Clock::duration{}) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (restartPace_) due_ = {};
    restartPace_ = false;
  }
  const auto now = Clock::now();
  if (due_ == Clock::time_point{} || now > due_ + period_)
    due_ = now;
  else
    std::this_thread::sleep_until(due_);
  due_ += period_;
}

bool PlaybackSource::holdAtEnd() {
  if (!hold_) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seekCame_ = false;
    atEnd_ = true;
  }
  if (changed_) changed_();
  std::unique_lock<std::mutex> lock(mu_);
  // Polled: the reasons to let go (a quit key, a signal) come without a notify.
  while (!seekCame_ && hold_()) cv_.wait_for(lock, std::chrono::milliseconds(40));
  atEnd_ = false;
  const bool seek = seekCame_;
  lock.unlock();
  if (changed_) changed_();
  return seek;
}

bool PlaybackSource::next(const SlotFn& slot, FrameTime& time) {
  while (true) {
    pace();
    if (inner_.next(slot, time)) return true;
    if (!holdAtEnd()) return false;
  }
}

}  // namespace vf::app
