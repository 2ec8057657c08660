// The engine's capture thread (the contract is at the top of engine.cpp): frames from the
// source into free slots, in capture order; offline sources also start each frame's upload.
#include <stdexcept>

#include "pipeline/engine_impl.hpp"

namespace vf {

using namespace engine_detail;

void Engine::Impl::captureLoop(FrameSource& source) {
  std::vector<std::uint8_t> discard;
  try {
    bool isLive = false;
    {
      std::lock_guard<std::mutex> lock(m);
      isLive = live;
    }
    while (true) {
      {
        std::lock_guard<std::mutex> lock(m);
        if (aborted || inputClosed || stopRequested.load()) break;
        if (options.maxFrames >= 0 && nextIndex >= std::uint64_t(options.maxFrames)) break;
      }
      if (!captureOne(source, isLive, discard)) break;
    }
  } catch (...) {
    recordError(std::current_exception(), true);
  }
  {
    std::lock_guard<std::mutex> lock(m);
    captureDone = true;
  }
  readyCv.notify_all();
}

bool Engine::Impl::captureOne(FrameSource& source, bool isLive,
                              std::vector<std::uint8_t>& discard) {
  int cur = -1;
  bool discarded = false, slotFailed = false;
  const FrameSource::SlotFn slotFn = [&](const FrameDesc& d) {
    try {
      return takeSlot(d, isLive, cur, discarded, discard);
    } catch (...) {
      slotFailed = true;
      throw;
    }
  };
  bool got = false;
  FrameTime time;
  try {
    got = source.next(slotFn, time);
  } catch (...) {
    releaseSlot(cur);
    // A source error ends the input (what was captured is still delivered); a failure to
    // provide the slot (OpenCL) is the engine's own and aborts.
    recordError(std::current_exception(), slotFailed);
    return false;
  }
  if (!got) {
    releaseSlot(cur);
    return false;
  }
  if (cur < 0) {
    if (discarded) return true;
    throw std::logic_error("FrameSource::next returned a frame without calling slot()");
  }
  Slot& s = ring[cur];
  s.captured = Clock::now();
  s.time = time;
  // Offline: start the upload right here, off the submit thread (whose enqueueing is the host's
  // limit on a fast GPU) and as early as possible. Live: the submit thread uploads, so a
  // waiting frame can still be overwritten by a newer one.
  if (!isLive) enqueueUpload(s);
  bool accepted = false;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!aborted && !inputClosed) {
      s.index = nextIndex++;
      ring.markReady(cur);
      stats.countIn();
      accepted = true;
    }
  }
  if (accepted) {
    readyCv.notify_one();
  } else {
    undoUpload(s);
    releaseSlot(cur);
  }
  return true;
}

FrameView Engine::Impl::takeSlot(const FrameDesc& d, bool isLive, int& cur, bool& discarded,
                                 std::vector<std::uint8_t>& discard) {
  if (d.empty())
    throw std::invalid_argument("FrameSource: slot() asked for an empty frame (" + d.str() + ")");
  if (cur < 0) {
    std::unique_lock<std::mutex> lock(m);
    while (true) {
      if (aborted || inputClosed || stopRequested.load()) break;
      if ((cur = ring.takeFree()) >= 0) break;
      // Live and behind: overwrite the oldest frame that has not started uploading.
      if (isLive && (cur = ring.takeOldestReady()) >= 0) {
        stats.countDropped();
        break;
      }
      freeCv.wait_for(lock, kPoll);
    }
    if (cur < 0) {
      // Stopping: let the source finish this frame into scratch memory, then drop it.
      discarded = true;
      lock.unlock();
      discard.resize(d.bytes());
      return {discard.data(), d.width, d.height, d.rowBytes(), d.format};
    }
  }
  Slot& s = ring[cur];
  s.hostIn.reserve(cl->context(), mapQueue, d.bytes());
  s.in = d;
  s.inPitch = uploadPitch(d);
  return {s.hostIn.data(), d.width, d.height, d.rowBytes(), d.format};
}

void Engine::Impl::releaseSlot(int s) {
  if (s < 0) return;
  {
    std::lock_guard<std::mutex> lock(m);
    ring.release(s);
  }
  freeCv.notify_all();
}

// A frame uploaded by the capture thread but then discarded (stop, error): its upload ends
// before the slot's memory can be reused, and a mapped-transfer buffer comes back from the
// device.
void Engine::Impl::undoUpload(Slot& s) {
  if (!s.upload()) return;
  try {
    transfer->undoUpload(s, mapQueue);
  } catch (...) {
    // The run is ending with an error anyway; run() resets buffers left with the device.
  }
  s.upload = cl::Event();
}

}  // namespace vf
