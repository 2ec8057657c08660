// The engine's sink thread (the contract is at the top of engine.cpp): waits on the oldest
// in-flight frame's download, measures it, hands it to the sink and frees its slot.
#include <algorithm>

#include "pipeline/engine_impl.hpp"
#include "pipeline/error.hpp"

namespace vf {

using namespace engine_detail;

void Engine::Impl::sinkLoop(FrameSink& sink) {
  try {
    while (true) {
      const int s = nextToDeliver(sink);
      if (s < 0) return;
      deliver(ring[s], sink);
      {
        std::lock_guard<std::mutex> lock(m);
        ring.release(s);
        ++deliveredCount;
      }
      freeCv.notify_all();
      readyCv.notify_one();
      if (sink.wantsStop()) stopRequested.store(true);
    }
  } catch (...) {
    recordError(std::current_exception(), true);
  }
}

int Engine::Impl::nextToDeliver(FrameSink& sink) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(m);
      if (!aborted && !ring.hasInFlight() && !submitDone) inflightCv.wait_for(lock, kPoll);
      if (aborted) return -1;
      if (ring.hasInFlight()) return ring.takeInFlight();
      if (submitDone) return -1;
    }
    // A sink may want to stop while no frame is coming (the preview window was closed). Asked
    // without the lock held: a sink may call post() or stop().
    if (sink.wantsStop()) stopRequested.store(true);
  }
}

// The device time the frame's commands ran, into the device's record: the upload, the chain
// from its first command's start (every frame's first pass has events, timed or not:
// Chain::enqueue) to its last command's end, and the download. A wait inside the chain's span
// is the compute queue still running the frame before: busy either way.
void Engine::Impl::recordActivity(const Slot& s) {
  DeviceActivity& a = cl->activity();
  cl_ulong start = 0, end = 0, first = 0;
  auto ran = [&](const cl::Event& e) {
    return e() && profilingTime(e, CL_PROFILING_COMMAND_START, start) &&
           profilingTime(e, CL_PROFILING_COMMAND_END, end);
  };
  if (ran(s.upload)) a.add(start, end);
  if (ran(s.run.done)) {
    first = start;
    for (const StageEvents& ev : s.run.stages)
      if (ev.first() && profilingTime(ev.first, CL_PROFILING_COMMAND_START, first)) break;
    a.add(std::min(first, start), end);
  }
  if (ran(s.download)) a.add(start, end);
}

void Engine::Impl::deliver(Slot& s, FrameSink& sink) {
  {
    const std::int64_t since = std::chrono::steady_clock::now().time_since_epoch().count();
    deviceWaitSince.store(since);
    struct Waited {  // also when the wait throws
      Impl& e;
      std::int64_t since;
      ~Waited() {
        const std::int64_t took =
            std::chrono::steady_clock::now().time_since_epoch().count() - since;
        if (took > e.longestDeviceWait.load()) e.longestDeviceWait.store(took);
        e.deviceWaitSince.store(0);
      }
    } waited{*this, since};
    clCall("clWaitForEvents(download)", [&] { s.download.wait(); });
  }
  // The download waited on the chain, which waited on the upload: every event is complete.
  FrameStats st;
  st.index = s.index;
  if (s.timed) {
    st.stageMs.resize(s.run.stages.size());
    for (std::size_t i = 0; i < s.run.stages.size(); ++i)
      st.stageMs[i] = spanMs(s.run.stages[i].first, s.run.stages[i].last);
  }
  st.uploadMs = eventMs(s.upload);
  st.downloadMs = eventMs(s.download);
  recordActivity(s);
  st.queueWaitMs = msBetween(s.captured, s.uploadQueued);
  cl_ulong queued = 0, started = 0;
  if (profilingTime(s.upload, CL_PROFILING_COMMAND_QUEUED, queued) &&
      profilingTime(s.upload, CL_PROFILING_COMMAND_START, started) && started > queued)
    st.queueWaitMs += double(started - queued) * 1e-6;  // waiting in the upload queue

  // Side outputs: from the slot's pinned buffers into the vectors the sink sees.
  s.side.resize(s.sideBytes.size());
  for (std::size_t k = 0; k < s.side.size(); ++k)
    s.side[k].assign(s.sideHost[k].data(), s.sideHost[k].data() + s.sideBytes[k]);

  FrameResult r;
  r.output = {s.hostOut.data(), s.out.width, s.out.height, s.out.rowBytes(), s.out.format};
  r.input = {s.hostIn.data(), s.in.width, s.in.height, s.in.rowBytes(), s.in.format};
  r.side = s.side.empty() ? nullptr : &s.side;
  r.sideInfo = s.side.empty() ? nullptr : &s.sideInfo;
  r.time = s.time;
  st.latencyMs = msBetween(s.captured, Clock::now());
  r.stats = st;
  sink.consume(r);
  stats.add(st, s.submitMs);
  if (statsFile.isOpen())
    statsFile.writeLine(statsJsonLine(st, s.keys ? *s.keys : std::vector<std::string>{}));
  s.releaseEvents();
}

}  // namespace vf
