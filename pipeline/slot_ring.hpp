#pragma once
// The streaming engine's ring of slots: each slot carries one frame from capture to the sink,
// with its pinned host memory, device buffers and events; the ring keeps which slots are free,
// which hold captured frames and which are on the device, each in arrival order.
//
//   Free --takeFree / takeOldestReady--> Filling --markReady--> Ready --takeReady--> Submitted
//     ^                                                                                 |
//     +------------------- release (delivered, discarded, or an error) <---- pushInFlight,
//     takeInFlight
//
// Not thread-safe: the engine holds its mutex around every call (the slots' buffers and events
// are touched only by the thread that owns the slot in its current state).
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/chain.hpp"
#include "pipeline/engine_buffers.hpp"
#include "pipeline/frame.hpp"

namespace vf {

enum class SlotState { Free, Filling, Ready, Submitted };

// One frame's place in the ring: pinned input and output, device input and output (copy
// transfers), the side outputs, and the frame's events while it is in flight.
struct Slot {
  using Clock = std::chrono::steady_clock;

  SlotState state = SlotState::Free;
  PinnedBuffer hostIn, hostOut;
  DeviceBuffer devIn, devOut;
  FrameDesc in, out;
  // Copy transfers: the bytes from a row to the next in devIn (as uploaded) and devOut (as the
  // chain writes it); the host's rows are packed.
  std::size_t inPitch = 0, outPitch = 0;
  std::vector<std::vector<std::uint8_t>> side;  // handed to the sink
  std::vector<PinnedBuffer> sideHost;           // where the device writes them (pinned)
  std::vector<std::size_t> sideBytes;           // this frame's side output sizes
  std::vector<SideOutputInfo> sideInfo;         // and what they are
  std::uint64_t index = 0;
  FrameTime time;       // as the source set it
  double submitMs = 0;  // host time spent enqueueing this frame
  bool timed = true;    // its stages enqueued with events (EngineOptions::timingEvery)
  Clock::time_point captured, uploadQueued, submitted;
  cl::Event upload, download;
  ChainRun run;
  std::shared_ptr<const std::vector<std::string>> keys;  // stage keys for the stats file

  // The frame's events, counted in engineObjectCounts() while the slot holds them.
  void countEvents();
  void releaseEvents();

 private:
  long heldEvents_ = 0;
};

class SlotRing {
 public:
  explicit SlotRing(int slots);

  int size() const { return static_cast<int>(slots_.size()); }
  Slot& operator[](int i) { return *slots_.at(static_cast<std::size_t>(i)); }

  // Every slot Free and in the free queue, the other queues empty.
  void reset();

  // A free slot, now Filling; -1 when none.
  int takeFree();
  // The oldest Ready slot, taken back to Filling (a live source overwrites a frame that has not
  // started uploading); -1 when none.
  int takeOldestReady();
  // Filling -> Ready, behind the frames captured before it.
  void markReady(int s);
  // The oldest Ready slot, now Submitted; -1 when none.
  int takeReady();
  // A Submitted slot whose commands are enqueued, behind the ones enqueued before it.
  void pushInFlight(int s);
  // The oldest in-flight slot (the next for the sink); -1 when none.
  int takeInFlight();
  // Back to Free.
  void release(int s);

  bool hasFree() const { return !free_.empty(); }
  bool hasReady() const { return !ready_.empty(); }
  bool hasInFlight() const { return !inFlight_.empty(); }

 private:
  static int pop(std::deque<int>& q);
  std::vector<std::unique_ptr<Slot>> slots_;
  std::deque<int> free_, ready_, inFlight_;
};

}  // namespace vf
