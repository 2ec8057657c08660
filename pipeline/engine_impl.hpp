#pragma once
// The engine's state and its three threads' entry points, shared by engine.cpp (run, the
// public API), engine_capture.cpp, engine_submit.cpp and engine_sink.cpp. Private to the
// library; the threading contract is at the top of engine.cpp.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/engine.hpp"
#include "pipeline/engine_stats.hpp"
#include "pipeline/slot_ring.hpp"
#include "pipeline/slot_transfer.hpp"
#include "pipeline/text_file.hpp"

namespace vf {

namespace engine_detail {
using Clock = std::chrono::steady_clock;
// How often a waiting thread rechecks the stop flag (stop() cannot notify).
constexpr auto kPoll = std::chrono::milliseconds(10);
constexpr int kMaxSlots = 8;

inline double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Thrown inside the submit thread to unwind when another thread aborted the run.
struct Aborted {};
}  // namespace engine_detail

struct Engine::Impl {
  Impl(std::shared_ptr<ClContext> context, Chain c, EngineOptions o);
  ~Impl();

  void run(FrameSource& source, FrameSink& sink);
  bool startRun(FrameSource& source);  // false: failed, the error recorded
  void endRun(FrameSink& sink, std::thread& sinkThread, std::thread& captureThread);

  // capture thread (engine_capture.cpp)
  void captureLoop(FrameSource& source);
  // One frame from the source into a slot; false at the end of the input.
  bool captureOne(FrameSource& source, bool live, std::vector<std::uint8_t>& discard);
  FrameView takeSlot(const FrameDesc& d, bool live, int& cur, bool& discarded,
                     std::vector<std::uint8_t>& discard);
  void releaseSlot(int s);
  void undoUpload(Slot& s);

  // submit thread (engine_submit.cpp)
  void submitLoop();
  int nextToSubmit();  // a Ready slot, now Submitted; -1 to wait; -2 when submission is over
  void applyChanges();
  void drain();
  void configureChain(const FrameDesc& in);
  void publishStageNames();
  void submit(Slot& s);
  void enqueueUpload(Slot& s);  // also on the capture thread, while it owns the slot
  cl::Event readSideOutputs(Slot& s, const cl::Event& after);
  // Whether the frame being submitted gets per-stage events (1 in options.timingEvery).
  // A --stats file records every frame's stage times, so it times every frame.
  bool timeThisFrame() {
    const std::uint64_t every = options.statsPath.empty() ? std::uint64_t(options.timingEvery) : 1;
    return timingCounter++ % every == 0;
  }

  // sink thread (engine_sink.cpp)
  void sinkLoop(FrameSink& sink);
  int nextToDeliver(FrameSink& sink);  // an in-flight slot; -1 when delivery is over
  void deliver(Slot& s, FrameSink& sink);
  void recordActivity(const Slot& s);

  void recordError(std::exception_ptr e, bool fatal);
  void notifyAll();

  std::shared_ptr<ClContext> cl;
  Chain chain;  // touched by the submit thread only while run() runs
  const EngineOptions options;
  std::unique_ptr<SlotTransfer> transfer;
  cl::CommandQueue uploadQueue, computeQueue, downloadQueue, mapQueue;

  std::mutex m;  // guards everything below up to stopRequested, and the ring
  SlotRing ring;
  std::condition_variable freeCv;      // a slot was freed or a frame delivered
  std::condition_variable readyCv;     // a frame was captured, a change posted, input ended
  std::condition_variable inflightCv;  // a frame was submitted, or submission ended
  std::vector<std::function<void(Chain&)>> posts;
  bool live = false;  // the source's policy, read once per run
  bool running = false, aborted = false, captureDone = false, inputClosed = false,
       submitDone = false;
  std::uint64_t nextIndex = 0, submittedCount = 0, deliveredCount = 0;
  std::exception_ptr firstError;

  std::atomic<bool> stopRequested{false};
  std::atomic<bool> sinkFinished{false};  // endRun has called sink.finish()
  // When the sink thread began waiting for the device to finish a frame (steady clock, ns);
  // 0 while it is not waiting. The longest such wait that ended (ns).
  std::atomic<std::int64_t> deviceWaitSince{0}, longestDeviceWait{0};
  // Whether the chain pads its frames' rows (Chain::padsRows), for the capture thread's uploads:
  // set by the submit thread whenever the chain changes (a frame uploaded before a change is
  // uploaded again at submit when the chain's pitch differs).
  std::atomic<bool> padRows{false};
  std::size_t uploadPitch(const FrameDesc& d) const {
    return transfer->zeroCopy() || !padRows.load()
               ? d.rowBytes()
               : std::size_t(Chain::paddedWidth(d.width)) * std::size_t(d.channels());
  }

  RollingStats stats;
  std::uint64_t timingCounter = 0;                               // frames submitted
  std::shared_ptr<const std::vector<std::string>> stageKeysNow;  // submit thread
  TextFile statsFile;                                            // sink thread
};

}  // namespace vf
