#include "app/job_runner.hpp"
#include "app/cl_hint.hpp"

#include <spdlog/spdlog.h>

extern "C" {
#include <libavutil/cpu.h>
}

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "app/feeds.hpp"
#include "app/frame_split.hpp"
#include "app/interrupt.hpp"
#include "app/media/av.hpp"
#include "app/media/frame_convert.hpp"
#include "app/media/muxer.hpp"
#include "app/media/output_claim.hpp"
#include "app/report.hpp"
#include "app/run_setup.hpp"
#include "app/watcher.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/error.hpp"
#include "pipeline/quote.hpp"

namespace vf::app {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// Inputs decoded at once share the cores this process may use (its CPU affinity: a Slurm
// task's cpuset, as FFmpeg counts them for one decoder): each decoder gets four times its share
// of them, at least one and at most what one input alone gets (FFmpeg's automatic count: the
// cores, at most 16). A decoder's frame threads wait on each other (each frame on its reference
// rows), so an equal share leaves cores idle: 8 H.264 1080p inputs on 16 cores decoded 30%
// faster with 8 threads each than with 2 on a crf-12 stream, 3-8% on a crf-30 one
// (docs/PERFORMANCE.md).
int decodeThreadsEach(int atOnce) {
  constexpr int kAutoMax = 16;  // libavcodec's own cap on an automatic thread count
  const int cores = av_cpu_count();
  if (atOnce <= 1 || cores <= 0) return 0;
  return std::clamp((4 * cores + atOnce - 1) / atOnce, 1, std::min(cores, kAutoMax));
}

// What every worker shares: the jobs' counters, the engines running now (Ctrl-C stops them).
struct Shared {
  Shared(const std::vector<std::shared_ptr<ClContext>>& c, const Settings& settings,
         const std::vector<PlannedJob>& j, int atOnce)
      : atOnce(atOnce),
        devices(c),
        s(settings),
        jobs(j),
        decodeThreads(decodeThreadsEach(atOnce)),
        convertThreads(media::convertThreadsEach(atOnce, settings.threads.value_or(0))),
        frames(std::make_unique<std::atomic<std::int64_t>[]>(j.size())) {
    for (const PlannedJob& job : j) {
      JobResult r;
      r.spec = job.spec;
      results.push_back(std::move(r));
    }
  }
  const int atOnce;  // inputs run at once (--jobs)
  const std::vector<std::shared_ptr<ClContext>>& devices;
  const Settings& s;
  const std::vector<PlannedJob>& jobs;
  const int decodeThreads;   // per input's decoder (0: one per core)
  const int convertThreads;  // per input's conversion into the slots
  std::vector<JobResult> results;
  std::unique_ptr<std::atomic<std::int64_t>[]> frames;  // delivered, per job
  std::atomic<std::size_t> next{0};
  std::atomic<int> running{0}, finished{0};
  std::mutex m;
  std::vector<Engine*> engines;
  std::vector<pthread_t> opening;  // workers opening an input (it may block: a FIFO)
  FrameSplit* split = nullptr;     // one input over several devices
  JobWatcher* watcher = nullptr;

  void add(Engine* e) {
    std::lock_guard<std::mutex> lock(m);
    engines.push_back(e);
    if (interruptSignal()) e->stop();  // the watcher may have stopped the others already
  }
  void remove(Engine* e) {
    std::lock_guard<std::mutex> lock(m);
    engines.erase(std::remove(engines.begin(), engines.end(), e), engines.end());
  }
  void stopAll() {
    std::lock_guard<std::mutex> lock(m);
    for (Engine* e : engines) e->stop();
    if (split) split->abort();
  }
  // The longest any device has been finishing one frame, where that is a stall (deviceStall).
  double deviceStall() {
    std::lock_guard<std::mutex> lock(m);
    double most = 0;
    for (const Engine* e : engines) most = std::max(most, app::deviceStall(*e));
    return most;
  }
  // An input's open, which a stop ends even where it blocks (wakeOpening() until it returns).
  template <typename F>
  auto open(F&& f) -> decltype(f()) {
    {
      std::lock_guard<std::mutex> lock(m);
      opening.push_back(pthread_self());
    }
    struct Done {
      Shared& sh;
      ~Done() {
        std::lock_guard<std::mutex> lock(sh.m);
        sh.opening.erase(std::find(sh.opening.begin(), sh.opening.end(), pthread_self()));
      }
    } done{*this};
    return openInterruptibly(std::forward<F>(f));
  }
  void wakeOpening() {
    std::lock_guard<std::mutex> lock(m);
    for (pthread_t t : opening) wakeThread(t);
  }
  void setSplit(FrameSplit* f) {
    std::lock_guard<std::mutex> lock(m);
    split = f;
    if (split && interruptSignal()) split->abort();
  }
};

// The error in the words main would use for it alone.
std::string describe(const std::exception& e) {
  if (const auto* cl = dynamic_cast<const ClError*>(&e))
    return std::string("OpenCL: ") + cl->what() + clHint(cl->code());
  // One line for the table and the summary: a chain's caret lines are left out.
  if (const auto* chain = dynamic_cast<const ChainError*>(&e)) return chain->message();
  return e.what();
}

// Counts the frames an input delivered (the progress line reads it from the watcher thread).
class CountingSink : public FrameSink {
 public:
  CountingSink(FrameSink& inner, std::atomic<std::int64_t>& n) : inner_(inner), n_(n) {}
  void consume(const FrameResult& f) override {
    inner_.consume(f);
    n_.fetch_add(1, std::memory_order_relaxed);
  }
  void finish() override { inner_.finish(); }

 private:
  FrameSink& inner_;
  std::atomic<std::int64_t>& n_;
};

std::unique_ptr<FrameSink> openJobOutput(const PlannedJob& job, const Chain& chain,
                                         CaptureSource& source) {
  if (job.output.kind == OutputKind::None) return makeNullSink();
  OutputSpec spec = job.output;
  if (!job.writePath.empty()) {
    spec.path = job.writePath;
    spec.url = "file:" + job.writePath;
    // The temporary name is this task's own (claimed, runOne): what a stopped task left there
    // is written over, and a link found there (planted in a shared directory) is removed, never
    // written through.
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(job.writePath, ec))) fs::remove(job.writePath, ec);
  }
  return openInterruptibly([&] { return openOutput(spec, chain, source); });
}

// One engine on `ctx`: the input's source through `chain` into `sink`; `stats` at its end,
// also when it fails.
void runSingle(Shared& sh, const PlannedJob& job, const std::shared_ptr<ClContext>& ctx,
               Chain chain, FrameSource& source, FrameSink& sink, const EngineOptions& eo,
               EngineStats& stats) {
  Engine engine(ctx, std::move(chain), eo);
  const Settings& s = sh.s;
  const bool dropNever = s.drop ? *s.drop == "never" : job.output.kind != OutputKind::None;
  WaitingSource waiting(source);
  sh.add(&engine);
  try {
    engine.run(source.live() && dropNever ? static_cast<FrameSource&>(waiting) : source, sink);
  } catch (...) {
    sh.remove(&engine);
    stats = engine.stats();
    throw;
  }
  sh.remove(&engine);
  stats = engine.stats();
}

void runOne(Shared& sh, std::size_t k, const std::shared_ptr<ClContext>& ctx) {
  const PlannedJob& job = sh.jobs[k];
  JobResult& r = sh.results[k];
  r.device = ctx->info().index();
  // Before the input is read: another task making this output fails this one.
  media::OutputClaim claim = job.writePath.empty()
                                 ? media::OutputClaim()
                                 : media::OutputClaim(job.writePath, job.spec.output);
  const Settings& s = sh.s;
  auto makeChain = [&] { return chainOf(s); };
  Chain chain = makeChain();
  InputOptions io = inputOptions(s, chain, false);
  if (!s.threads) io.decodeThreads = sh.decodeThreads;  // --threads says it for every input
  io.convertThreads = sh.convertThreads;
  io.decodeGpu = ctx->info().pciAddresses;  // split over several devices: the first's
  std::unique_ptr<CaptureSource> source = sh.open([&] { return openSource(job.source, io); });
  r.description = source->description();
  // Several inputs on a CPU device: each frame size its own programs (ProgramVariant says why).
  chain.setProgramsPerFrameSize(ctx->facts().cpu && sh.jobs.size() > 1);
  chain.configure(*ctx, source->firstFrameDesc());
  // One input at a time (one input, or --jobs 1) and several devices: its frames are shared
  // among them (files; a live source stays on one device).
  const bool split = sh.atOnce == 1 && sh.devices.size() > 1 && !source->live();
  if (split)
    for (std::size_t d = 1; d < sh.devices.size(); ++d)
      r.device += "+" + sh.devices[d]->info().index();
  spdlog::info("input {} on {}: {} -> {}", job.spec.index, r.device, printable(r.description),
               job.output.kind == OutputKind::None ? std::string("(no output)")
                                                   : printable(job.spec.output));
  std::unique_ptr<FrameSink> out = openJobOutput(job, chain, *source);
  struct Written {  // what the output holds and what the input's end said, however it ends
    const FrameSink& out;
    const CaptureSource& in;
    JobResult& r;
    ~Written() {
      r.framesWritten = out.framesWritten();
      r.warnings = in.notes();
    }
  } written{*out, *source, r};
  CountingSink counting(*out, sh.frames[k]);
  TeeSink sink(&counting, sh.watcher ? sh.watcher->started(k, *source, chain) : nullptr);
  EngineOptions eo;
  eo.slots = s.slots.value_or(2);
  eo.statsPath = job.spec.statsPath;
  eo.maxFrames = s.frames.value_or(-1);
  eo.timingEvery = sh.watcher ? 1 : 8;
  EndSeen input(*source);
  if (split) {
    std::vector<std::uint64_t> per;
    r.stats = runSplit(
        sh.devices, makeChain, source->firstFrameDesc(), input, sink, eo,
        [&](Engine* e, bool add) { add ? sh.add(e) : sh.remove(e); },
        [&](FrameSplit* f) { sh.setSplit(f); }, &per);
    for (std::size_t d = 0; d < per.size(); ++d)
      r.framesPerDevice.emplace_back(sh.devices[d]->info().index(), per[d]);
  } else
    runSingle(sh, job, ctx, std::move(chain), input, sink, eo, r.stats);
  // A stop that came once the input had ended (or given its --frames) with every frame in the
  // output (through it in order: split over devices, a stop drops frames past a gap) and none
  // of its repeats left out took nothing away: the output is whole and takes its name. A stop
  // is a signal's, or the preview's (q, the window closed) before the input ended.
  const bool whole =
      (input.ended() || (eo.maxFrames >= 0 && r.stats.framesIn >= std::uint64_t(eo.maxFrames))) &&
      std::uint64_t(sh.frames[k].load()) == r.stats.framesIn && !out->cutShort();
  if ((interruptSignal() || sink.wantsStop()) && !whole) {
    r.status = JobStatus::Stopped;
    return;
  }
  if (!job.writePath.empty()) {
    claim.complete();
    std::error_code ec;
    fs::rename(job.writePath, job.spec.output, ec);
    if (ec)
      throw RuntimeError("renaming " + quote(job.writePath) + " to " + quote(job.spec.output) +
                         ": " + ec.message());
  }
  r.status = JobStatus::Done;
}

void worker(Shared& sh, const std::shared_ptr<ClContext>& ctx) {
  for (;;) {
    const std::size_t k = sh.next.fetch_add(1);
    if (k >= sh.jobs.size() || interruptSignal()) return;
    const PlannedJob& job = sh.jobs[k];
    JobResult& r = sh.results[k];
    if (job.skip || !job.problem.empty()) {
      r.status = job.skip ? JobStatus::Skipped : JobStatus::Failed;
      r.error = job.skip ? "" : job.problem;
      r.usage = !job.skip;  // a problem found while planning is the user's (UserError)
      if (!job.skip)
        spdlog::error("input {} ({}): {}", job.spec.index, printable(job.spec.input), job.problem);
      else if (!job.writePath.empty() && media::removeStalePartial(job.writePath))
        spdlog::info("{} is complete: the partial file {} a stopped run left beside it is removed",
                     quote(job.spec.output), quote(job.writePath));
      ++sh.finished;
      if (sh.watcher) sh.watcher->ended(k, r);
      continue;
    }
    ++sh.running;
    try {
      try {
        runOne(sh, k, ctx);
      } catch (media::OutOfRoom& room) {
        // The task's partial file went with its failure (OutputClaim): the message says so.
        std::error_code ec;
        if (!job.writePath.empty() && !std::filesystem::exists(job.writePath, ec)) room.removed();
        throw;
      }
    } catch (const Interrupted&) {
      r.status = JobStatus::Stopped;
    } catch (const std::exception& e) {
      r.status = interruptSignal() ? JobStatus::Stopped : JobStatus::Failed;
      if (r.status == JobStatus::Failed) {
        r.usage = dynamic_cast<const UserError*>(&e) != nullptr;
        // A value the config file set, named by its option: where the file set it.
        r.error = r.usage ? sh.s.withOrigin(describe(e)) : describe(e);
        spdlog::error("input {} ({}): {}", job.spec.index, printable(job.spec.input), r.error);
      }
    }
    // What reached the output, whether it ended well or not (one input over several devices:
    // after a stop, frames past a gap in the order are not written).
    r.stats.framesOut = static_cast<std::uint64_t>(sh.frames[k].load());
    --sh.running;
    ++sh.finished;
    if (sh.watcher) sh.watcher->ended(k, r);
  }
}

// Ctrl-C stops every engine; the progress line sums the inputs' frames.
void watch(Shared& sh, const RunnerOptions& o, const std::atomic<bool>& done) {
  const auto start = Clock::now();
  auto nextDraw = start;
  bool stopped = false, printed = false;
  // An output to a reader that may stop reading (one at most: stdout, a FIFO), and the devices
  // (app/watcher.hpp).
  std::string stallable;
  for (const PlannedJob& j : sh.jobs)
    if (stallable.empty() && outputMayStall(j.output)) stallable = j.output.path;
  StallWatch stalls(
      {"a device", "outputs may not play", stallable, " and the inputs not yet ended"});
  const auto framesDone = [&sh] {
    std::int64_t n = 0;
    for (std::size_t k = 0; k < sh.jobs.size(); ++k) n += sh.frames[k].load();
    return n;
  };
  while (!done.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!stopped && interruptSignal()) {
      stopped = true;
      if (printed) std::fputc('\n', stderr);
      if (!stopRequested())  // a stop with no signal has said its cause and what it does
        spdlog::warn(
            "{}: finishing the frames in flight of every input and closing the outputs ({}, a "
            "second from now, quits at once: outputs may then not play)",
            signalVerb(interruptSignal()), signalAgain(interruptSignal()));
      sh.stopAll();
    }
    if (stopped) sh.wakeOpening();  // again each time: a wake may come just before the block
    const auto endLine = [&printed] {
      if (printed) std::fputc('\n', stderr);
      printed = false;
    };
    if (const std::string why = stalls.poll(stopped, true, sh.deviceStall(), endLine);
        !why.empty()) {
      endLine();
      quitStopped(framesDone(), why);
    }
    if (o.progress && Clock::now() >= nextDraw) {
      Progress p;
      p.frames = framesDone();
      p.elapsedSec = std::chrono::duration<double>(Clock::now() - start).count();
      std::fprintf(stderr, "\r%s inputs: %d running, %d of %zu ended\033[K",
                   formatProgress(p).c_str(), sh.running.load(), sh.finished.load(),
                   sh.jobs.size());
      std::fflush(stderr);
      printed = true;
      nextDraw = Clock::now() + std::chrono::milliseconds(250);
    }
  }
  if (printed) std::fputc('\n', stderr);
}

}  // namespace

std::vector<JobResult> runPlannedJobs(const std::vector<std::shared_ptr<ClContext>>& devices,
                                      const Settings& s, const std::vector<PlannedJob>& jobs,
                                      const RunnerOptions& o) {
  const int n = std::max(1, std::min<int>(o.atOnce, static_cast<int>(jobs.size())));
  Shared sh(devices, s, jobs, n);
  sh.watcher = o.watcher;
  std::atomic<bool> done{false};
  std::thread watcher([&] { watch(sh, o, done); });
  std::vector<std::thread> workers;
  for (int i = 0; i < n; ++i)
    workers.emplace_back([&sh, &devices, i] { worker(sh, devices[i % devices.size()]); });
  for (auto& w : workers) w.join();
  done = true;
  watcher.join();
  return std::move(sh.results);
}

}  // namespace vf::app
