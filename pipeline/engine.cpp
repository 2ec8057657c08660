// The streaming engine. Three threads, one mutex for the slot bookkeeping:
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
//                    its enqueueing (~15 us per command on NVIDIA) is the host's limit, so it
//                    does as little else as possible.
//   sink thread      waits on D of the oldest Submitted slot (only that event), measures it,
//                    hands it to sink.consume() and frees the slot.
//
// Transfers (EngineOptions::transfer): on a discrete GPU "upload" and "download" are copies
// between the pinned slot and device buffers, as above. On a device that shares host memory
// (PoCL here) the kernels use the pinned slot buffers directly: U unmaps the input (handing it
// to the device), D maps input and output back after the chain; no byte is copied.
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
// every wait below is a timed wait that rechecks it. After a stop, frames already captured are
// still processed and delivered; a frame the source delivers afterwards goes into a scratch
// buffer and is discarded (not counted as in). run() calls sink.finish() once the sink thread
// is done, then waits for the capture thread: a source blocked inside next() delays run()'s
// return until that next() returns (an engine cannot interrupt a blocking read; the app's
// sources return within a frame interval), but the sink is already finished by then.
//
// Errors: an exception from the source ends the input like end of stream (frames already
// captured are still delivered); one from the chain, OpenCL or the sink aborts at once (no
// more consume() calls). Either way sink.finish() is called once and run() rethrows the first.
#include "pipeline/engine.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "pipeline/cl/error.hpp"
#include "pipeline/engine_stats.hpp"
#include "pipeline/pinned_ring.hpp"

namespace vf {

namespace {

using Clock = std::chrono::steady_clock;
// How often a waiting thread rechecks the stop flag (stop() cannot notify).
constexpr auto kPoll = std::chrono::milliseconds(10);
constexpr int kMaxSlots = 8;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

bool profilingInfo(const cl::Event& e, cl_profiling_info what, cl_ulong& value) {
  return e() && clGetEventProfilingInfo(e(), what, sizeof value, &value, nullptr) == CL_SUCCESS;
}

// Device time from the start of `first` to the end of `last`, in ms (0 if unavailable).
double spanMs(const cl::Event& first, const cl::Event& last) {
  cl_ulong a = 0, b = 0;
  if (!profilingInfo(first, CL_PROFILING_COMMAND_START, a) ||
      !profilingInfo(last, CL_PROFILING_COMMAND_END, b) || b < a)
    return 0.0;
  return double(b - a) * 1e-6;
}

enum class SlotState { Free, Filling, Ready, Submitted };

// One frame's place in the ring: pinned input, device input and output, pinned output, the
// side outputs, and the frame's events while it is in flight.
struct Slot {
  SlotState state = SlotState::Free;
  PinnedBuffer hostIn, hostOut;
  DeviceBuffer devIn, devOut;
  FrameDesc in, out;
  std::vector<std::vector<std::uint8_t>> side;  // handed to the sink
  std::vector<PinnedBuffer> sideHost;           // where the device writes them (pinned)
  std::vector<std::size_t> sideBytes;           // this frame's side output sizes
  std::uint64_t index = 0;
  FrameTime time;       // as the source set it
  double submitMs = 0;  // host time spent enqueueing this frame
  bool timed = true;    // its stages enqueued with events (EngineOptions::timingEvery)
  Clock::time_point captured, uploadQueued, submitted;
  cl::Event upload, download;
  ChainRun run;
  std::shared_ptr<const std::vector<std::string>> keys;  // stage keys for the stats file
  long heldEvents = 0;

  void countEvents() {
    heldEvents = (upload() ? 1 : 0) + (download() ? 1 : 0) + (run.done() ? 1 : 0);
    for (const auto& st : run.stages) heldEvents += (st.first() ? 1 : 0) + (st.last() ? 1 : 0);
    detail::countEngineEvents(heldEvents);
  }
  void releaseEvents() {
    upload = cl::Event();
    download = cl::Event();
    run = ChainRun();
    detail::countEngineEvents(-heldEvents);
    heldEvents = 0;
  }
};

// Thrown inside the submit thread to unwind when another thread aborted the run.
struct Aborted {};

}  // namespace

struct Engine::Impl {
  Impl(std::shared_ptr<ClContext> context, Chain c, EngineOptions o);
  ~Impl();

  void run(FrameSource& source, FrameSink& sink);

  // capture thread
  void captureLoop(FrameSource& source);
  FrameView takeSlot(const FrameDesc& d, bool live, int& cur, bool& discarded,
                     std::vector<std::uint8_t>& discard);
  void releaseSlot(int s);
  // submit thread
  void submitLoop();
  void applyChanges();
  void drain();
  void configureChain(const FrameDesc& in);
  void publishStageNames();
  void submit(Slot& s);
  // Whether the frame being submitted gets per-stage events (1 in options.timingEvery).
  // A --stats file records every frame's stage times, so it times every frame.
  bool timeThisFrame() {
    const std::uint64_t every = options.statsPath.empty() ? std::uint64_t(options.timingEvery) : 1;
    return timingCounter++ % every == 0;
  }
  std::uint64_t timingCounter = 0;  // frames submitted (submit thread only)
  void enqueueUpload(Slot& s);
  void undoUpload(Slot& s);
  cl::Event readSideOutputs(Slot& s, const cl::Event& after);
  // sink thread
  void sinkLoop(FrameSink& sink);
  void deliver(Slot& s, FrameSink& sink);

  void recordError(std::exception_ptr e, bool fatal);
  void notifyAll();

  std::shared_ptr<ClContext> cl;
  Chain chain;  // touched by the submit thread only while run() runs
  const EngineOptions options;
  bool zeroCopy = false;  // Transfer::Map in effect
  cl::CommandQueue uploadQueue, computeQueue, downloadQueue, mapQueue;
  std::vector<std::unique_ptr<Slot>> slots;

  std::mutex m;  // guards everything below up to stopRequested, and the Slot::state fields
  std::condition_variable freeCv;      // a slot was freed or a frame delivered
  std::condition_variable readyCv;     // a frame was captured, a change posted, input ended
  std::condition_variable inflightCv;  // a frame was submitted, or submission ended
  std::deque<int> freeSlots, readySlots, inflightSlots;
  std::vector<std::function<void(Chain&)>> posts;
  bool live = false;  // the source's policy, read once per run
  bool running = false, aborted = false, captureDone = false, inputClosed = false,
       submitDone = false;
  std::uint64_t nextIndex = 0, submittedCount = 0, deliveredCount = 0;
  std::exception_ptr firstError;

  std::atomic<bool> stopRequested{false};

  RollingStats stats;
  std::shared_ptr<const std::vector<std::string>> stageKeysNow;  // submit thread
  std::vector<SideOutput> sideOutputs;                           // submit thread
  std::ofstream statsFile;                                       // sink thread
};

Engine::Impl::Impl(std::shared_ptr<ClContext> context, Chain c, EngineOptions o)
    : cl(std::move(context)), chain(std::move(c)), options(std::move(o)) {
  if (!cl) throw std::invalid_argument("Engine: no OpenCL context");
  if (options.timingEvery < 1)
    throw UserError("engine: timingEvery must be at least 1, got " +
                    std::to_string(options.timingEvery));
  if (options.slots < 1 || options.slots > kMaxSlots)
    throw UserError("engine: slots must be in [1, " + std::to_string(kMaxSlots) + "], got " +
                    std::to_string(options.slots));
  if (options.transfer == EngineOptions::Transfer::Auto) {
    zeroCopy = cl->facts().hostUnifiedMemory;
  } else {
    zeroCopy = options.transfer == EngineOptions::Transfer::Map;
  }
  uploadQueue = cl->makeQueue();
  computeQueue = cl->makeQueue();
  downloadQueue = cl->makeQueue();
  mapQueue = cl->makeQueue();
  for (int i = 0; i < options.slots; ++i) slots.push_back(std::make_unique<Slot>());
}

Engine::Impl::~Impl() {
  for (auto* q : {&uploadQueue, &computeQueue, &downloadQueue}) {
    try {
      q->finish();
    } catch (...) {
    }
  }
  for (auto& s : slots) s->releaseEvents();
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
  {
    std::lock_guard<std::mutex> lock(m);
    if (running) throw std::logic_error("Engine::run: already running");
    running = true;
    aborted = captureDone = inputClosed = submitDone = false;
    firstError = nullptr;
    freeSlots.clear();
    readySlots.clear();
    inflightSlots.clear();
    for (std::size_t i = 0; i < slots.size(); ++i) {
      slots[i]->state = SlotState::Free;
      freeSlots.push_back(static_cast<int>(i));
    }
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
    statsFile.open(options.statsPath, std::ios::out | std::ios::trunc);
    if (!statsFile) {
      recordError(std::make_exception_ptr(
                      UserError("cannot write the stats file '" + options.statsPath + "'")),
                  true);
      ok = false;
    }
  }

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
  if (statsFile.is_open()) statsFile.close();
  try {
    sink.finish();
  } catch (...) {
    recordError(std::current_exception(), true);
  }
  // The capture thread discards whatever it still reads; a source blocked in next() holds us
  // here until that call returns.
  if (captureThread.joinable()) captureThread.join();

  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(m);
    for (auto& s : slots) {
      s->releaseEvents();
      s->state = SlotState::Free;
      // Map mode: a frame cut short by an error may have left a buffer with the device.
      if (!s->hostIn.mapped()) s->hostIn.reset();
      if (!s->hostOut.mapped()) s->hostOut.reset();
    }
    readySlots.clear();
    inflightSlots.clear();
    error = firstError;
    running = false;
  }
  stopRequested.store(false);
  if (error) std::rethrow_exception(error);
}

// --- capture thread -------------------------------------------------------------------------

void Engine::Impl::releaseSlot(int s) {
  if (s < 0) return;
  {
    std::lock_guard<std::mutex> lock(m);
    slots[s]->state = SlotState::Free;
    freeSlots.push_back(s);
  }
  freeCv.notify_all();
}

FrameView Engine::Impl::takeSlot(const FrameDesc& d, bool live, int& cur, bool& discarded,
                                 std::vector<std::uint8_t>& discard) {
  if (d.empty())
    throw std::invalid_argument("FrameSource: slot() asked for an empty frame (" + d.str() + ")");
  if (cur < 0) {
    std::unique_lock<std::mutex> lock(m);
    while (true) {
      if (aborted || inputClosed || stopRequested.load()) break;
      if (!freeSlots.empty()) {
        cur = freeSlots.front();
        freeSlots.pop_front();
        break;
      }
      if (live && !readySlots.empty()) {
        // The pipeline is behind: overwrite the oldest frame that has not started uploading.
        cur = readySlots.front();
        readySlots.pop_front();
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
    slots[cur]->state = SlotState::Filling;
  }
  Slot& s = *slots[cur];
  s.hostIn.reserve(cl->context(), mapQueue, d.bytes());
  s.in = d;
  return {s.hostIn.data(), d.width, d.height, d.rowBytes(), d.format};
}

void Engine::Impl::captureLoop(FrameSource& source) {
  std::vector<std::uint8_t> discard;
  try {
    bool live = false;
    {
      std::lock_guard<std::mutex> lock(m);
      live = this->live;
    }
    while (true) {
      {
        std::lock_guard<std::mutex> lock(m);
        if (aborted || inputClosed || stopRequested.load()) break;
        if (options.maxFrames >= 0 && nextIndex >= std::uint64_t(options.maxFrames)) break;
      }
      int cur = -1;
      bool discarded = false, slotFailed = false;
      const std::function<FrameView(const FrameDesc&)> slotFn = [&](const FrameDesc& d) {
        try {
          return takeSlot(d, live, cur, discarded, discard);
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
        break;
      }
      if (!got) {
        releaseSlot(cur);
        break;
      }
      if (cur < 0) {
        if (discarded) continue;
        throw std::logic_error("FrameSource::next returned a frame without calling slot()");
      }
      Slot& s = *slots[cur];
      s.captured = Clock::now();
      s.time = time;
      // Offline: start the upload right here, off the submit thread (whose enqueueing is the
      // host's limit on a fast GPU) and as early as possible. Live: the submit thread uploads,
      // so a waiting frame can still be overwritten by a newer one.
      if (!live) enqueueUpload(s);
      bool accepted = false;
      {
        std::lock_guard<std::mutex> lock(m);
        if (!aborted && !inputClosed) {
          s.index = nextIndex++;
          s.state = SlotState::Ready;
          readySlots.push_back(cur);
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

// --- submit thread --------------------------------------------------------------------------

void Engine::Impl::submitLoop() {
  try {
    while (true) {
      applyChanges();
      int s = -1;
      {
        std::unique_lock<std::mutex> lock(m);
        if (aborted) return;
        if (stopRequested.load() && !inputClosed) {
          inputClosed = true;  // finish what was captured, accept nothing more
          freeCv.notify_all();
        }
        if (!posts.empty()) continue;
        // Live: keep one slot out of the device's hands, so the source always has a slot to
        // overwrite (the oldest waiting frame) instead of blocking when the device or the sink
        // falls behind. Offline: every slot may be in flight.
        const std::uint64_t maxInFlight =
            live && slots.size() > 1 ? slots.size() - 1 : slots.size();
        if (!readySlots.empty() && submittedCount - deliveredCount < maxInFlight) {
          s = readySlots.front();
          readySlots.pop_front();
          slots[s]->state = SlotState::Submitted;
        } else if (readySlots.empty() && (captureDone || inputClosed)) {
          return;
        } else {
          readyCv.wait_for(lock, kPoll);
          continue;
        }
      }
      submit(*slots[s]);
      {
        std::lock_guard<std::mutex> lock(m);
        inflightSlots.push_back(s);
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

void Engine::Impl::drain() {
  std::unique_lock<std::mutex> lock(m);
  while (deliveredCount != submittedCount) {
    if (aborted) throw Aborted{};
    freeCv.wait_for(lock, kPoll);
  }
}

void Engine::Impl::publishStageNames() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < chain.size(); ++i) names.push_back(chain.stage(i).name());
  stageKeysNow = std::make_shared<const std::vector<std::string>>(stageKeys(names));
  stats.setStageNames(std::move(names));
  sideOutputs = chain.configured() ? chain.sideOutputs() : std::vector<SideOutput>{};
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
    configureChain(s.in);
  }
  const FrameDesc out = chain.output();
  s.out = out;
  s.hostOut.reserve(cl->context(), mapQueue, out.bytes());
  s.keys = stageKeysNow;
  s.submitted = Clock::now();
  if (!s.upload()) enqueueUpload(s);
  if (zeroCopy) {
    // The kernels read and write the slot's own buffers: unmapping hands them to the device
    // (event U), mapping them after the chain hands them back (event D, the last command on the
    // in-order download queue). On a device sharing host memory neither copies anything.
    s.hostOut.unmap(computeQueue);  // in order before the chain writes it
    s.timed = timeThisFrame();
    s.run = chain.enqueue(computeQueue, s.hostIn.buffer(), s.hostOut.buffer(), {s.upload}, nullptr,
                          s.timed);
    s.run.done = readSideOutputs(s, s.run.done);
    clCall("clFlush(compute)", [&] { computeQueue.flush(); });
    const std::vector<cl::Event> after{s.run.done() ? s.run.done : s.upload};
    s.hostIn.map(downloadQueue, CL_MAP_READ | CL_MAP_WRITE, after);
    s.download = s.hostOut.map(downloadQueue, CL_MAP_READ | CL_MAP_WRITE, after);
    clCall("clFlush(download)", [&] { downloadQueue.flush(); });
    s.countEvents();
    s.submitMs = msBetween(s.submitted, Clock::now());
    return;
  }
  s.devOut.reserve(cl->context(), out.bytes());
  s.timed = timeThisFrame();
  s.run = chain.enqueue(computeQueue, s.devIn.buffer(), s.devOut.buffer(), {s.upload}, nullptr,
                        s.timed);
  s.run.done = readSideOutputs(s, s.run.done);
  clCall("clFlush(compute)", [&] { computeQueue.flush(); });
  const std::vector<cl::Event> after{s.run.done() ? s.run.done : s.upload};
  clCall("clEnqueueReadBuffer(download)", [&] {
    downloadQueue.enqueueReadBuffer(s.devOut.buffer(), CL_FALSE, 0, out.bytes(), s.hostOut.data(),
                                    &after, &s.download);
    downloadQueue.flush();
  });
  s.countEvents();
  s.submitMs = msBetween(s.submitted, Clock::now());
}

// Upload (event U): copy mode writes the pinned slot into the slot's device buffer; map mode
// unmaps the slot buffer, handing it to the device. Runs on the capture thread (offline) or the
// submit thread (live), while that thread owns the slot.
void Engine::Impl::enqueueUpload(Slot& s) {
  s.uploadQueued = Clock::now();
  if (zeroCopy) {
    s.upload = s.hostIn.unmap(uploadQueue);
  } else {
    s.devIn.reserve(cl->context(), s.in.bytes());
    clCall("clEnqueueWriteBuffer(upload)", [&] {
      uploadQueue.enqueueWriteBuffer(s.devIn.buffer(), CL_FALSE, 0, s.in.bytes(), s.hostIn.data(),
                                     nullptr, &s.upload);
    });
  }
  // Commands of another queue wait on U: it must be flushed (OpenCL 1.2, section 5.13).
  clCall("clFlush(upload)", [&] { uploadQueue.flush(); });
}

// A frame uploaded by the capture thread but then discarded (stop, error): wait for its upload
// before the slot's memory can be reused, and take a map-mode buffer back from the device.
void Engine::Impl::undoUpload(Slot& s) {
  if (!s.upload()) return;
  try {
    s.upload.wait();
    if (zeroCopy && !s.hostIn.mapped())
      s.hostIn.map(mapQueue, CL_MAP_READ | CL_MAP_WRITE, {s.upload}).wait();
  } catch (...) {
    // The run is ending with an error anyway; run() resets buffers left with the device.
  }
  s.upload = cl::Event();
}

// Side outputs (the histogram) are read back on the compute queue, so the next frame's chain
// cannot overwrite them first, into pinned memory: NVIDIA stages a read into pageable memory
// and may hold the calling (submit) thread until it is done, which would serialise frames.
cl::Event Engine::Impl::readSideOutputs(Slot& s, const cl::Event& after) {
  s.sideBytes.clear();
  if (sideOutputs.empty()) return after;
  if (s.sideHost.size() < sideOutputs.size()) s.sideHost.resize(sideOutputs.size());
  cl::Event last = after;
  // This frame's buffers: a stage may alternate between buffers (the double-buffered histogram).
  const std::vector<SideOutput> now = chain.sideOutputs();
  for (std::size_t k = 0; k < sideOutputs.size() && k < now.size(); ++k) {
    const SideOutput& so = now[k];
    s.sideHost[k].reserve(cl->context(), mapQueue, std::max<std::size_t>(so.bytes, 1));
    const std::vector<cl::Event> deps{last};
    cl::Event read;
    clCall("clEnqueueReadBuffer(" + so.name + ")", [&] {
      computeQueue.enqueueReadBuffer(so.buffer, CL_FALSE, 0, so.bytes, s.sideHost[k].data(),
                                     last() ? &deps : nullptr, &read);
    });
    s.sideBytes.push_back(so.bytes);
    last = read;
  }
  return last;
}

// --- sink thread ----------------------------------------------------------------------------

void Engine::Impl::sinkLoop(FrameSink& sink) {
  try {
    while (true) {
      int s = -1;
      while (s < 0) {
        {
          std::unique_lock<std::mutex> lock(m);
          if (!aborted && inflightSlots.empty() && !submitDone) inflightCv.wait_for(lock, kPoll);
          if (aborted) return;
          if (!inflightSlots.empty()) {
            s = inflightSlots.front();
            inflightSlots.pop_front();
          } else if (submitDone) {
            return;
          }
        }
        // A sink may want to stop while no frame is coming (the preview window was closed).
        // Asked without the lock held: a sink may call post() or stop().
        if (s < 0 && sink.wantsStop()) stopRequested.store(true);
      }
      deliver(*slots[s], sink);
      {
        std::lock_guard<std::mutex> lock(m);
        slots[s]->state = SlotState::Free;
        freeSlots.push_back(s);
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

void Engine::Impl::deliver(Slot& s, FrameSink& sink) {
  clCall("clWaitForEvents(download)", [&] { s.download.wait(); });
  // The download waited on the chain, which waited on the upload: every event is complete.
  FrameStats st;
  st.index = s.index;
  if (s.timed) {
    st.stageMs.resize(s.run.stages.size());
    for (std::size_t i = 0; i < s.run.stages.size(); ++i)
      st.stageMs[i] = spanMs(s.run.stages[i].first, s.run.stages[i].last);
  }
  st.uploadMs = spanMs(s.upload, s.upload);
  st.downloadMs = spanMs(s.download, s.download);
  st.queueWaitMs = msBetween(s.captured, s.uploadQueued);
  cl_ulong queued = 0, started = 0;
  if (profilingInfo(s.upload, CL_PROFILING_COMMAND_QUEUED, queued) &&
      profilingInfo(s.upload, CL_PROFILING_COMMAND_START, started) && started > queued)
    st.queueWaitMs += double(started - queued) * 1e-6;  // waiting in the upload queue

  // Side outputs: from the slot's pinned buffers into the vectors the sink sees.
  s.side.resize(s.sideBytes.size());
  for (std::size_t k = 0; k < s.side.size(); ++k)
    s.side[k].assign(s.sideHost[k].data(), s.sideHost[k].data() + s.sideBytes[k]);

  FrameResult r;
  r.output = {s.hostOut.data(), s.out.width, s.out.height, s.out.rowBytes(), s.out.format};
  r.input = {s.hostIn.data(), s.in.width, s.in.height, s.in.rowBytes(), s.in.format};
  r.side = s.side.empty() ? nullptr : &s.side;
  r.time = s.time;
  st.latencyMs = msBetween(s.captured, Clock::now());
  r.stats = st;
  sink.consume(r);
  stats.add(st, s.submitMs);
  if (statsFile.is_open()) {
    statsFile << statsJsonLine(st, s.keys ? *s.keys : std::vector<std::string>{}) << '\n';
    if (!statsFile) throw UserError("cannot write the stats file '" + options.statsPath + "'");
  }
  s.releaseEvents();
}

// --- Engine ---------------------------------------------------------------------------------

Engine::Engine(std::shared_ptr<ClContext> cl, Chain chain, EngineOptions options)
    : impl_(std::make_unique<Impl>(std::move(cl), std::move(chain), std::move(options))) {}

Engine::~Engine() = default;

void Engine::run(FrameSource& source, FrameSink& sink) { impl_->run(source, sink); }

void Engine::stop() { impl_->stopRequested.store(true); }

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
  return impl_->zeroCopy ? EngineOptions::Transfer::Map : EngineOptions::Transfer::Copy;
}

}  // namespace vf
