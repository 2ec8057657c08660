// The engine's submit thread, the caller of run() (the contract is at the top of engine.cpp):
// posted changes between frames, then per captured frame the upload if not done yet, the chain
// and the download, all enqueued without waiting on the device.
#include "pipeline/engine_impl.hpp"
#include "pipeline/error.hpp"

namespace vf {

using namespace engine_detail;

void Engine::Impl::submitLoop() {
  try {
    while (true) {
      applyChanges();
      const int s = nextToSubmit();
      if (s == -2) return;
      if (s < 0) continue;
      submit(ring[s]);
      {
        std::lock_guard<std::mutex> lock(m);
        ring.pushInFlight(s);
        ++submittedCount;
      }
      inflightCv.notify_one();
    }
  } catch (const Aborted&) {
    // Another thread failed and recorded why.
  } catch (...) {
    recordError(std::current_exception(), true);
  }
}

int Engine::Impl::nextToSubmit() {
  std::unique_lock<std::mutex> lock(m);
  if (aborted) return -2;
  if (stopRequested.load() && !inputClosed) {
    inputClosed = true;  // finish what was captured, accept nothing more
    freeCv.notify_all();
  }
  if (!posts.empty()) return -1;
  // Live: keep one slot out of the device's hands, so the source always has a slot to
  // overwrite (the oldest waiting frame) instead of blocking when the device or the sink falls
  // behind. Offline: every slot may be in flight.
  const std::uint64_t slots = std::uint64_t(ring.size());
  const std::uint64_t maxInFlight = live && slots > 1 ? slots - 1 : slots;
  if (ring.hasReady() && submittedCount - deliveredCount < maxInFlight) return ring.takeReady();
  if (!ring.hasReady() && (captureDone || inputClosed)) return -2;
  readyCv.wait_for(lock, kPoll);
  return -1;
}

void Engine::Impl::drain() {
  std::unique_lock<std::mutex> lock(m);
  while (deliveredCount != submittedCount) {
    if (aborted) throw Aborted{};
    freeCv.wait_for(lock, kPoll);
  }
}

void Engine::Impl::publishStageNames() {
  // A fused pass is timed as one: its label on its first stage, "" on the others.
  std::vector<std::string> names = chain.timingNames();
  stageKeysNow = std::make_shared<const std::vector<std::string>>(stageKeys(names));
  stats.setStageNames(std::move(names));
  padRows.store(chain.padsRows(*cl));
}

void Engine::Impl::configureChain(const FrameDesc& in) {
  chain.configure(*cl, in);
  publishStageNames();
}

void Engine::Impl::applyChanges() {
  {
    std::lock_guard<std::mutex> lock(m);
    if (posts.empty()) return;
  }
  // "Between two frames": nothing in flight while the chain changes, so no stage can rewrite a
  // buffer or kernel an earlier frame still uses.
  drain();
  std::vector<std::function<void(Chain&)>> changes;
  {
    std::lock_guard<std::mutex> lock(m);
    changes.swap(posts);
  }
  for (auto& change : changes) change(chain);
  if (chain.configured()) {
    const ProgramVariant variant(chain.programVariant());
    for (std::size_t i = 0; i < chain.size(); ++i)
      if (chain.enabled(i)) chain.stage(i).update();
    publishStageNames();
  } else if (!chain.input().empty()) {
    configureChain(chain.input());
  } else {
    publishStageNames();  // first frame configures
  }
}

void Engine::Impl::submit(Slot& s) {
  if (!chain.configured() || chain.input() != s.in) {
    drain();  // frames of the old size reach the sink first
    const bool midStream = chain.configured();
    try {
      configureChain(s.in);
    } catch (const ChainError& e) {
      // The input changed size mid-stream and a stage cannot take the new one (a crop past its
      // edge): the run's failure, not the command's (exit 1), with the frames so far kept.
      if (!midStream) throw;
      throw RuntimeError("the input changed to " + s.in.str() + " mid-stream and the chain " +
                         "cannot take it: " + e.message());
    }
  }
  s.out = chain.output();
  s.outPitch = chain.outputPitch();
  s.hostOut.reserve(cl->context(), mapQueue, s.out.bytes());
  s.keys = stageKeysNow;
  s.submitted = Clock::now();
  // Not uploaded yet (live), or uploaded with another row pitch than the chain's now (a change
  // between the capture and this frame's turn): uploaded again, after the first on its queue.
  if (!s.upload() || (!transfer->zeroCopy() && s.inPitch != chain.inputPitch())) {
    s.inPitch = chain.inputPitch();
    enqueueUpload(s);
  }
  transfer->prepareOutput(s, computeQueue);
  s.timed = timeThisFrame();
  s.run = chain.enqueue(computeQueue, transfer->chainInput(s), transfer->chainOutput(s), {s.upload},
                        nullptr, s.timed);
  s.run.done = readSideOutputs(s, s.run.done);
  clCall("clFlush(compute)", [&] { computeQueue.flush(); });
  s.download = transfer->download(s, downloadQueue, {s.run.done() ? s.run.done : s.upload});
  clCall("clFlush(download)", [&] { downloadQueue.flush(); });
  s.countEvents();
  s.submitMs = msBetween(s.submitted, Clock::now());
}

// Upload (event U), on the capture thread (offline) or the submit thread (live), while that
// thread owns the slot.
void Engine::Impl::enqueueUpload(Slot& s) {
  s.uploadQueued = Clock::now();
  s.upload = transfer->upload(s, uploadQueue);
  // Commands of another queue wait on U: it must be flushed (OpenCL 1.2, section 5.13).
  clCall("clFlush(upload)", [&] { uploadQueue.flush(); });
}

// Side outputs (the histogram) are read back on the compute queue, so the next frame's chain
// cannot overwrite them first, into pinned memory: NVIDIA stages a read into pageable memory
// and may hold the calling (submit) thread until it is done, which would serialise frames.
cl::Event Engine::Impl::readSideOutputs(Slot& s, const cl::Event& after) {
  // This frame's buffers: a stage may alternate between buffers (the double-buffered histogram).
  const std::vector<SideOutput> outs = chain.sideOutputs();
  s.sideBytes.clear();
  s.sideInfo.clear();
  if (outs.empty()) return after;
  if (s.sideHost.size() < outs.size()) s.sideHost.resize(outs.size());
  std::vector<std::uint8_t*> dst;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    s.sideHost[k].reserve(cl->context(), mapQueue, std::max<std::size_t>(outs[k].bytes, 1));
    dst.push_back(s.sideHost[k].data());
    s.sideBytes.push_back(outs[k].bytes);
    s.sideInfo.push_back({outs[k].stage, outs[k].name});
  }
  return chain.readSideOutputs(computeQueue, dst, after);
}

}  // namespace vf
