#pragma once
// Adapters between the run's source and sinks and the engine (the preview's playback is
// app/playback.hpp): a live source that waits instead of dropping (--drop never), and the tee that
// hands each frame to the output and the preview and counts them for the progress line.
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "app/interrupt.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

// --drop never: a live source waits for a free slot instead of dropping (a recording keeps
// every frame the source delivers).
class WaitingSource : public FrameSource {
 public:
  explicit WaitingSource(FrameSource& inner) : inner_(inner) {}
  bool live() const override { return false; }
  std::int64_t frameCount() const override { return inner_.frameCount(); }
  double fps() const override { return inner_.fps(); }
  bool next(const SlotFn& slot, FrameTime& time) override { return inner_.next(slot, time); }

 private:
  FrameSource& inner_;
};

// Remembers whether the source said it had no more frames while no stop was asked for (its end,
// or its --to): a stop after that takes nothing from the output.
class EndSeen : public FrameSource {
 public:
  explicit EndSeen(FrameSource& inner) : inner_(inner) {}
  bool live() const override { return inner_.live(); }
  std::int64_t frameCount() const override { return inner_.frameCount(); }
  double fps() const override { return inner_.fps(); }
  bool next(const SlotFn& slot, FrameTime& time) override {
    const bool more = inner_.next(slot, time);
    if (!more && !interruptSignal()) ended_ = true;
    return more;
  }
  bool ended() const { return ended_.load(); }

 private:
  FrameSource& inner_;
  std::atomic<bool> ended_{false};
};

// Hands each frame to the output file and/or the preview, and counts what was delivered
// (the progress line reads the count from the watcher thread).
class TeeSink : public FrameSink {
 public:
  TeeSink(FrameSink* output, FrameSink* preview) : output_(output), preview_(preview) {}

  void consume(const FrameResult& frame) override {
    if (output_) output_->consume(frame);
    if (preview_) preview_->consume(frame);
    frames_.fetch_add(1, std::memory_order_relaxed);
  }
  void finish() override {
    // Both are finished even when one throws; the file first (it is what must not be lost).
    std::exception_ptr first;
    for (FrameSink* s : {output_, preview_}) {
      if (!s) continue;
      try {
        s->finish();
      } catch (...) {
        if (!first) first = std::current_exception();
      }
    }
    if (first) std::rethrow_exception(first);
  }
  bool wantsStop() const override { return preview_ && preview_->wantsStop(); }
  std::int64_t frames() const { return frames_.load(std::memory_order_relaxed); }

 private:
  FrameSink* output_;
  FrameSink* preview_;
  std::atomic<std::int64_t> frames_{0};
};

}  // namespace vf::app
