#pragma once
// One input over several devices: each device's engine takes the next frame of the one source
// when it has a free slot (decoded straight into that slot), and the finished frames go to the
// one output in the source's order. The chain keeps no state from frame to frame, so the
// output is the one a single device gives.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "pipeline/cl/context.hpp"
#include "pipeline/engine.hpp"

namespace vf::app {

class FrameSplit {
 public:
  // `ways` engines read `source` (an offline one: it never drops) and write `out`, at most
  // `maxFrames` frames in all (-1: every frame). `staged`: decoded into one staging buffer,
  // then copied into the slot (below); false: straight into the slot (a source whose frames do
  // not depend on where they are written, the benchmark's).
  FrameSplit(FrameSource& source, FrameSink& out, int ways, std::int64_t maxFrames,
             bool staged = true);
  ~FrameSplit();
  FrameSplit(const FrameSplit&) = delete;
  FrameSplit& operator=(const FrameSplit&) = delete;

  // What engine `i` reads and writes. The part sinks' finish() does nothing: call out.finish()
  // once every engine has returned.
  FrameSource& source(int i);
  FrameSink& sink(int i);
  // A stop or a failed engine: frames still waiting for their turn are dropped (a frame before
  // them may never come), so the output ends at the last frame in order.
  void abort();
  std::int64_t written() const;

 private:
  struct Part;
  bool take(int part, const FrameSource::SlotFn& slot, FrameTime& time);
  void deliver(int part, const FrameResult& frame);

  FrameSource& source_;
  FrameSink& out_;
  std::int64_t maxFrames_;
  std::vector<std::unique_ptr<Part>> parts_;
  std::mutex takeMutex_;  // one decode at a time, in order
  std::int64_t taken_ = 0;
  // Frames are decoded here, then copied into the engine's slot: the pixel conversion's result
  // may depend on where the destination lies in memory (its SIMD paths), and the devices' slots
  // lie differently; one staging buffer makes every frame the same whichever device takes it.
  struct FreeAligned {
    void operator()(std::uint8_t* p) const;
  };
  std::unique_ptr<std::uint8_t, FreeAligned> staging_;
  std::size_t stagingBytes_ = 0;
  bool staged_ = true;
  bool ended_ = false;
  mutable std::mutex m_;  // the turn
  std::condition_variable turn_;
  std::int64_t next_ = 0;
  bool aborted_ = false;
};

// Runs `source` through one engine per device (each with its own chain from `makeChain`,
// configured for frames of `in`) into `out`, in order, then calls out.finish(). `track(engine,
// true)` before an engine runs and `track(engine, false)` after lets the caller stop them;
// `onSplit` gets the split (abort() it on a stop) while they run. Returns the engines'
// statistics merged (frames summed, device times of the first device); rethrows the first
// error after every engine has returned and the output is finished. `framesPerDevice`: the
// frames each device delivered.
EngineStats runSplit(const std::vector<std::shared_ptr<ClContext>>& devices,
                     const std::function<Chain()>& makeChain, const FrameDesc& in,
                     FrameSource& source, FrameSink& out, const EngineOptions& options,
                     const std::function<void(Engine*, bool)>& track,
                     const std::function<void(FrameSplit*)>& onSplit,
                     std::vector<std::uint64_t>* framesPerDevice = nullptr);

}  // namespace vf::app
