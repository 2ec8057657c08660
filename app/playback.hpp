#pragma once
// A source as the preview plays it. A file shown in the preview plays at its own frame rate, as
// a player would (795 frames of a 10 fps clip take 80 s, not 5); with an output file, or no
// window, it runs as fast as the device allows. A seekable file takes the preview's seeks, and
// at its end it can be held open (the window stays, and a seek back plays again) instead of
// ending the run.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "app/sources.hpp"

namespace vf::app {

// What the preview may ask of the playback (thread-safe).
class PlaybackControl {
 public:
  virtual ~PlaybackControl() = default;
  virtual bool seekable() const = 0;
  // The next frame delivered is the first presented at or after `seconds`.
  virtual void seek(double seconds) = 0;
  virtual bool atEnd() const = 0;  // held at the end of the file
  // Set before the run: called (on the capture thread) when the source comes to be held at the
  // end and when it leaves it, so what shows the state can draw it again.
  virtual void onAtEndChanged(std::function<void()> changed) = 0;
};

class PlaybackSource : public FrameSource, public PlaybackControl {
 public:
  struct Options {
    double paceFps = 0;     // > 0: deliver at most this many frames per second
    bool seekable = false;  // take seeks (only where the source can)
  };
  PlaybackSource(CaptureSource& inner, Options options);

  // Set before the run: asked at the end of the input, true holds the source there (next()
  // waits) until a seek comes or it turns false (the window closed, a signal); unset, or false,
  // ends the run there.
  void holdAtEnd(std::function<bool()> hold) { hold_ = std::move(hold); }

  bool live() const override { return inner_.live(); }
  std::int64_t frameCount() const override { return inner_.frameCount(); }
  double fps() const override { return inner_.fps(); }
  bool next(const SlotFn& slot, FrameTime& time) override;

  bool seekable() const override { return seekable_; }
  void seek(double seconds) override;
  bool atEnd() const override { return atEnd_; }
  void onAtEndChanged(std::function<void()> changed) override { changed_ = std::move(changed); }

 private:
  using Clock = std::chrono::steady_clock;
  void pace();
  bool holdAtEnd();  // true: a seek came, deliver again

  CaptureSource& inner_;
  Options opts_;
  std::function<bool()> hold_;
  std::function<void()> changed_;
  bool seekable_;
  Clock::duration period_{};
  Clock::time_point due_{};
  std::atomic<bool> atEnd_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool seekCame_ = false;     // guarded by mu_
  bool restartPace_ = false;  // guarded by mu_
};

}  // namespace vf::app
