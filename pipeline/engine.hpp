#pragma once
// The streaming engine: frames flow capture -> pinned slot -> upload queue -> the chain on the
// compute queue -> download queue -> sink thread, several frames in flight, linked by events.
// The host waits only on the event that hands a finished frame to the sink.
//
// CONTRACT (used by the app and the tests; change it together with them).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/chain.hpp"
#include "pipeline/cl/context.hpp"
#include "pipeline/frame.hpp"

namespace vf {

// Where frames come from. The engine calls next() on its capture thread.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Live sources (camera, stream) drop the oldest waiting frame when the pipeline falls behind;
  // offline sources (files) never drop: the capture thread waits for a free slot instead.
  virtual bool live() const = 0;
  using SlotFn = std::function<FrameView(const FrameDesc&)>;
  // Decodes the next frame. Once its size and format are known, call `slot(desc)` for a
  // writable pinned host buffer of that size and fill it (e.g. decode straight into it), and
  // set `time` when the source knows when the frame is presented (it starts unknown).
  // Returns false at end of stream. May throw; the engine stops and rethrows from run().
  virtual bool next(const SlotFn& slot, FrameTime& time) = 0;
  // Expected number of frames (for progress), or -1 when unknown.
  virtual std::int64_t frameCount() const { return -1; }
  virtual double fps() const { return 0; }
};

// Per-frame measurements. Device times come from event profiling (START/END).
struct FrameStats {
  std::uint64_t index = 0;      // input order, from 0, no gaps except dropped frames
  std::vector<double> stageMs;  // indexed like the chain's stages (0 when disabled); empty
                                // for a frame not timed (EngineOptions::timingEvery)
  double uploadMs = 0, downloadMs = 0;
  double queueWaitMs = 0;  // from capture done to upload start
  double latencyMs = 0;    // from capture done to hand-over to the sink
};

// One finished frame handed to a sink. Views are valid only during consume().
struct FrameResult {
  FrameView output;  // the chain's output
  FrameView input;   // the frame as captured (for side-by-side preview)
  FrameTime time;    // as the source set it
  FrameStats stats;
  const std::vector<std::vector<std::uint8_t>>* side = nullptr;  // chain.sideOutputs() data
  const std::vector<SideOutputInfo>* sideInfo = nullptr;         // what each entry of side is
};

// Where frames go. consume() runs on the engine's sink thread, strictly in input order.
class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void consume(const FrameResult& frame) = 0;
  // Called once after the last frame (end of stream, stop() or error): finalise files here.
  virtual void finish() {}
  // A sink may ask the engine to stop (the preview's q key).
  virtual bool wantsStop() const { return false; }
  // The frames the output holds once finish() returned (an encoder's buffered frames are lost
  // when a write fails; a constant-rate output repeats some); -1 where there is no such count.
  virtual std::int64_t framesWritten() const { return -1; }
  // True when a stop left out what it would have written for the frames it took (a
  // constant-rate output's repeats across a gap).
  virtual bool cutShort() const { return false; }
};

// Rolling statistics over the last frames (for the overlay and the end-of-run summary).
struct EngineStats {
  struct Dist {
    double mean = 0, p50 = 0, p99 = 0;
  };
  std::vector<std::string> stageNames;
  std::vector<Dist> stageMs;
  Dist uploadMs, downloadMs, latencyMs;
  Dist submitMs;      // host time to enqueue one frame (upload, chain, download): the host's limit
  double fps = 0;     // frames out per second over the window
  double runFps = 0;  // frames out per second from the first frame out to the last
  std::uint64_t framesIn = 0, framesOut = 0, dropped = 0;
  double elapsedSec = 0;
};

struct EngineOptions {
  int slots = 2;                // pinned host slots in the ring (2 = ping-pong, up to 8)
  std::string statsPath;        // JSON-lines per-frame stats file ("" = none)
  std::int64_t maxFrames = -1;  // stop after this many frames in (-1 = all)
  // How frames move between the host slots and the kernels. Copy: non-blocking write and read
  // between the pinned host slots and device buffers, on their own queues (discrete GPUs).
  // Map: the kernels use the pinned slot buffers themselves, handed over by unmap/map, so a
  // device that shares host memory (PoCL, integrated GPUs) copies nothing. Auto: Map where the
  // device reports CL_DEVICE_HOST_UNIFIED_MEMORY, else Copy.
  enum class Transfer { Auto, Copy, Map };
  Transfer transfer = Transfer::Auto;
  // Per-stage device times for 1 frame in `timingEvery` (1 = every frame). The other frames'
  // kernels are enqueued without events (FrameStats::stageMs empty for them), which on NVIDIA
  // saves ~7 us of host time per command; rolling stage statistics use the timed frames.
  int timingEvery = 1;
};

class Engine {
 public:
  Engine(std::shared_ptr<ClContext> cl, Chain chain, EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs until the source ends, stop() is called, or a sink asks to stop; drains every frame
  // in flight, calls sink.finish(), and returns. Rethrows the first error of any thread
  // after shutting down cleanly (sink.finish() is still called).
  void run(FrameSource& source, FrameSink& sink);

  // Thread-safe and async-signal-tolerant (sets a flag): finish the frames in flight and stop.
  // Frames already captured are still delivered; one the source hands over later is dropped.
  // sink.finish() runs as soon as the sink is drained; run() then returns once the source's
  // current next() returns (a source blocked inside next() delays that, never finish()).
  // A stop() before run() makes that run stop at once; each run() clears the request at its end.
  void stop();

  // Runs `change` on the engine's submit thread between two frames (toggle a stage, move a
  // parameter); the chain is reconfigured if the change requires it. Thread-safe.
  void post(std::function<void(Chain&)> change);

  EngineStats stats() const;  // thread-safe snapshot
  // True once the current run() has called sink.finish() (thread-safe): from then on run() only
  // waits for the source's current next() to return.
  bool sinkFinished() const;
  // How long the device has been finishing the oldest frame in flight while the sink waits for
  // it (thread-safe); 0 when nothing waits on the device. A kernel that never ends shows here.
  double deviceWaitSeconds() const;
  // The longest the sink has waited for the device to finish a frame, of the frames done.
  double longestDeviceWaitSeconds() const;
  // True once the current run() has an error to rethrow (thread-safe): a sink's finish() can
  // tell a failed run from an ended one (the preview then does not wait at the end).
  bool failed() const;
  // The engine's chain. While run() runs, only the submit thread may touch it: read it from
  // elsewhere only before or after run(), and change it through post().
  const Chain& chain() const;
  // The transfer mode in effect: Copy or Map (Auto resolved for the device).
  EngineOptions::Transfer transfer() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vf
