// The streaming engine. Three threads, one mutex for the slot bookkeeping (the slot ring,
// pipeline/slot_ring.hpp; each thread's loop is in engine_capture.cpp, engine_submit.cpp and
// engine_sink.cpp):
//
//   capture thread   source.next(slot): takes a free slot (offline: waits for one; live: takes
//                    the oldest captured frame not yet uploaded, dropping it), the source
//                    decodes straight into the slot's pinned host memory; offline, it also
//                    enqueues the upload at once (non-blocking write on the upload queue,
//                    event U); the slot becomes Ready, in capture order.
//   submit thread    (the caller of run()) runs posted changes between frames, then per Ready
//                    slot: the upload if not done yet (live), the chain on the compute queue
//                    after U, non-blocking read on the download queue after the chain (event D);
//                    the slot becomes Submitted. It never waits on the device. On a fast GPU
//                    its enqueueing (about 15 us per command on NVIDIA) is the host's limit, so
//                    it does as little else as possible.
//   sink thread      waits on D of the oldest Submitted slot (only that event), measures it,
//                    hands it to sink.consume() and frees the slot.
//
// Transfers (EngineOptions::transfer, one SlotTransfer strategy, pipeline/slot_transfer.hpp): on
// a discrete GPU "upload" and "download" are copies between the pinned slot and device buffers,
// as above. On a device that shares host memory (PoCL) the kernels use the pinned slot buffers
// directly: U unmaps the input (handing it to the device), D maps input and output back after
// the chain; no byte is copied. Side outputs (the histogram) are read back on the compute queue
// after the chain, into the slot's pinned memory (Chain::readSideOutputs), before D.
//
// So a slot's host and device buffers are reused only after its download completed and its
// sink call returned, frames stay in capture order end to end (FIFO at every step), and at
// most `slots` frames are in the engine at once (backpressure on the source).
//
// Live sources: at most slots-1 frames are submitted at a time, so one slot always stays with
// the capture side; when the device or the sink falls behind, the source overwrites the oldest
// frame that has not started uploading (counted as dropped) instead of blocking, and the sink
// gets the newest frames. With slots = 1 a live source waits like an offline one.
//
// A change of input size or format, or a posted change, waits until every submitted frame has
// reached the sink ("drain"), then reconfigures the chain; slots grow their buffers lazily when
// they next carry a larger frame. Nothing is lost or reordered.
//
// Stopping: stop() only sets an atomic flag (no lock, no notify: safe from a signal handler);
// every wait of the three threads is a timed wait that rechecks it. After a stop, frames
// already captured are still processed and delivered; a frame the source delivers afterwards
// goes into a scratch buffer and is discarded (not counted as in). run() calls sink.finish()
// once the sink thread is done, then waits for the capture thread: a source blocked inside
// next() delays run()'s return until that next() returns (an engine cannot interrupt a
// blocking read; the app's sources return within a frame interval), but the sink is already
// finished by then.
//
// Errors: an exception from the source ends the input like end of stream (frames already
// captured are still delivered); one from the chain, OpenCL or the sink aborts at once (no
// more consume() calls). Either way sink.finish() is called once and run() rethrows the first
// (a CLHPP cl::Error as the ClError naming its call).
#include "pipeline/engine.hpp"

#include <stdexcept>
#include <thread>

#include "pipeline/engine_impl.hpp"
#include "pipeline/error.hpp"

namespace vf {

using namespace engine_detail;

Engine::Impl::Impl(std::shared_ptr<ClContext> context, Chain c, EngineOptions o)
    : cl(std::move(context)), chain(std::move(c)), options(std::move(o)), ring(options.slots) {
  if (!cl) throw std::invalid_argument("Engine: no OpenCL context");
  if (options.timingEvery < 1)
    throw UserError("engine: timingEvery must be at least 1, got " +
                    std::to_string(options.timingEvery));
  if (options.slots < 1 || options.slots > kMaxSlots)
    throw UserError("engine: slots must be in [1, " + std::to_string(kMaxSlots) + "], got " +
                    std::to_string(options.slots));
  const bool zeroCopy = options.transfer == EngineOptions::Transfer::Auto
                            ? cl->facts().hostUnifiedMemory
                            : options.transfer == EngineOptions::Transfer::Map;
  transfer = makeSlotTransfer(zeroCopy, *cl);
  // The kernels work in the slots' own buffers, whose rows are the source's.
  if (zeroCopy) chain.setRowPitch(Chain::RowPitch::Packed);
  uploadQueue = cl->makeQueue();
  computeQueue = cl->makeQueue();
  downloadQueue = cl->makeQueue();
  mapQueue = cl->makeQueue();
}

Engine::Impl::~Impl() {
  for (auto* q : {&uploadQueue, &computeQueue, &downloadQueue}) {
    try {
      q->finish();
    } catch (...) {
    }
  }
  for (int i = 0; i < ring.size(); ++i) ring[i].releaseEvents();
}

void Engine::Impl::notifyAll() {
  freeCv.notify_all();
  readyCv.notify_all();
  inflightCv.notify_all();
}

void Engine::Impl::recordError(std::exception_ptr e, bool fatal) {
  {
    std::lock_guard<std::mutex> lock(m);
    if (!firstError) firstError = e;
    if (fatal) aborted = true;
  }
  notifyAll();
}

// --- run ------------------------------------------------------------------------------------

void Engine::Impl::run(FrameSource& source, FrameSink& sink) {
  bool ok = startRun(source);
  std::thread sinkThread, captureThread;
  if (ok) {
    try {
      sinkThread = std::thread([this, &sink] { sinkLoop(sink); });
      captureThread = std::thread([this, &source] { captureLoop(source); });
    } catch (...) {
      recordError(std::current_exception(), true);
      ok = false;
    }
  }
  if (ok) submitLoop();
  endRun(sink, sinkThread, captureThread);

  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(m);
    error = firstError;
    firstError = nullptr;  // rethrown below; failed() is about the run under way
    running = false;
  }
  stopRequested.store(false);
  if (error) rethrowAsLibraryError(error);
}

// A fresh ring and counters, the source's policy, the stats file.
bool Engine::Impl::startRun(FrameSource& source) {
  {
    std::lock_guard<std::mutex> lock(m);
    if (running) throw std::logic_error("Engine::run: already running");
    running = true;
    aborted = captureDone = inputClosed = submitDone = false;
    sinkFinished.store(false);
    firstError = nullptr;
    ring.reset();
    nextIndex = submittedCount = deliveredCount = 0;
  }
  stats.start({});
  publishStageNames();

  bool ok = true;
  try {
    const bool isLive = source.live();
    std::lock_guard<std::mutex> lock(m);
    live = isLive;
  } catch (...) {
    recordError(std::current_exception(), true);
    ok = false;
  }
  if (ok && !options.statsPath.empty()) {
    try {
      statsFile.open(options.statsPath, "the stats file");
    } catch (...) {
      recordError(std::current_exception(), true);
      ok = false;
    }
  }
  return ok;
}

// After the submit loop: the sink drained and finished, the capture thread joined, every slot's
// events released.
void Engine::Impl::endRun(FrameSink& sink, std::thread& sinkThread, std::thread& captureThread) {
  {
    std::lock_guard<std::mutex> lock(m);
    inputClosed = true;
    submitDone = true;
  }
  notifyAll();
  if (sinkThread.joinable()) sinkThread.join();
  // Only an abort leaves commands queued; let them end before slots can be reused or freed.
  for (auto* q : {&uploadQueue, &computeQueue, &downloadQueue}) {
    try {
      q->finish();
    } catch (...) {
    }
  }
  try {
    statsFile.close();  // a full disk shows here: the run fails, the output is still finished
  } catch (...) {
    recordError(std::current_exception(), true);
  }
  try {
    sink.finish();
  } catch (...) {
    recordError(std::current_exception(), true);
  }
  sinkFinished.store(true);
  // The capture thread discards whatever it still reads; a source blocked in next() holds us
  // here until that call returns.
  if (captureThread.joinable()) captureThread.join();

  std::lock_guard<std::mutex> lock(m);
  for (int i = 0; i < ring.size(); ++i) {
    Slot& s = ring[i];
    s.releaseEvents();
    // Map transfers: a frame cut short by an error may have left a buffer with the device.
    if (!s.hostIn.mapped()) s.hostIn.reset();
    if (!s.hostOut.mapped()) s.hostOut.reset();
  }
  ring.reset();
}

// --- Engine ---------------------------------------------------------------------------------

Engine::Engine(std::shared_ptr<ClContext> cl, Chain chain, EngineOptions options)
    : impl_(std::make_unique<Impl>(std::move(cl), std::move(chain), std::move(options))) {}

Engine::~Engine() = default;

void Engine::run(FrameSource& source, FrameSink& sink) { impl_->run(source, sink); }

void Engine::stop() { impl_->stopRequested.store(true); }

bool Engine::sinkFinished() const { return impl_->sinkFinished.load(); }

double Engine::deviceWaitSeconds() const {
  const std::int64_t since = impl_->deviceWaitSince.load();
  if (since == 0) return 0;
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return std::chrono::duration<double>(std::chrono::steady_clock::duration(now - since)).count();
}

double Engine::longestDeviceWaitSeconds() const {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::duration(impl_->longestDeviceWait.load()))
      .count();
}

bool Engine::failed() const {
  std::lock_guard<std::mutex> lock(impl_->m);
  return impl_->firstError != nullptr;
}

void Engine::post(std::function<void(Chain&)> change) {
  {
    std::lock_guard<std::mutex> lock(impl_->m);
    impl_->posts.push_back(std::move(change));
  }
  impl_->readyCv.notify_all();
}

EngineStats Engine::stats() const { return impl_->stats.snapshot(); }

const Chain& Engine::chain() const { return impl_->chain; }

EngineOptions::Transfer Engine::transfer() const {
  return impl_->transfer->zeroCopy() ? EngineOptions::Transfer::Map : EngineOptions::Transfer::Copy;
}

}  // namespace vf
