#include "app/bench/engine_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <opencv2/core.hpp>
#include <set>
#include <stdexcept>
#include <vector>

#include "pipeline/chain.hpp"
#include "pipeline/cl/error.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/engine_buffers.hpp"

namespace vf::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void fillRandom(std::uint8_t* p, std::size_t bytes, std::uint64_t seed) {
  cv::Mat m(1, static_cast<int>(bytes), CV_8U, p);
  cv::RNG rng(seed);
  rng.fill(m, cv::RNG::UNIFORM, 0, 256);
}

// Offline source of `total` frames: random content per slot (filled once), frame number stamped.
class BenchSource : public FrameSource {
 public:
  BenchSource(FrameDesc desc, int total) : desc_(desc), total_(total) {}
  bool live() const override { return false; }
  std::int64_t frameCount() const override { return total_; }
  bool next(const SlotFn& slot, FrameTime& /*time*/) override {
    if (produced_ >= total_) return false;
    const FrameView v = slot(desc_);
    if (filled_.insert(v.data).second) fillRandom(v.data, desc_.bytes(), 1000 + filled_.size());
    const std::uint64_t stamp = std::uint64_t(produced_);
    std::memcpy(v.data, &stamp, std::min(sizeof stamp, desc_.bytes()));
    ++produced_;
    return true;
  }

 private:
  FrameDesc desc_;
  int total_;
  int produced_ = 0;
  std::set<std::uint8_t*> filled_;
};

// Discards frames; notes when the warm-up ended and when the last frame arrived.
class TimingSink : public FrameSink {
 public:
  TimingSink(int warmup, int frames) : warmup_(warmup), frames_(frames) {}
  void consume(const FrameResult&) override {
    ++count_;
    if (count_ == warmup_) start_ = Clock::now();
    if (count_ == warmup_ + frames_) end_ = Clock::now();
  }
  int count() const { return count_; }
  double measuredSeconds() const { return seconds(start_, end_); }

 private:
  int warmup_, frames_;
  int count_ = 0;
  Clock::time_point start_, end_;
};

// The engine with `slots` slots: frames per second after the warm-up, the submit thread's
// enqueueing time, and how it moved frames.
void timeEngine(ClContext& cl, const std::string& chainText, const FrameDesc& in, int frames,
                int slots, EngineOptions::Transfer transfer, double bytesPerFrame,
                EngineBenchResult& r) {
  const int warmup = std::max(10, 2 * slots);
  std::shared_ptr<ClContext> shared(&cl, [](ClContext*) {});  // borrowed, outlives the engine
  EngineOptions options;
  options.slots = slots;
  options.transfer = transfer;
  options.timingEvery = 8;  // as the app runs offline (app/run.cpp)
  Engine engine(shared, Chain::parse(chainText), options);
  r.transfer = engine.transfer() == EngineOptions::Transfer::Map ? "map" : "copy";
  BenchSource source(in, warmup + frames);
  TimingSink sink(warmup, frames);
  engine.run(source, sink);
  if (sink.count() != warmup + frames)
    throw std::runtime_error("benchEngine: the engine delivered " + std::to_string(sink.count()) +
                             " of " + std::to_string(warmup + frames) + " frames");
  const double sec = sink.measuredSeconds();
  r.engineFps = frames / sec;
  r.submitMs = engine.stats().submitMs.p50;
  r.engineGBps = bytesPerFrame * frames / sec * 1e-9;
}

// Serial: blocking write, chain, blocking read, one queue; frames in pinned host memory too.
void timeSerial(ClContext& cl, const std::string& chainText, const FrameDesc& in, int frames,
                double bytesPerFrame, EngineBenchResult& r) {
  Chain chain = Chain::parse(chainText);
  chain.configure(cl, in);
  const FrameDesc out = chain.output();
  const cl::Context& ctx = cl.context();
  PinnedBuffer hostOut;
  std::vector<PinnedBuffer> hostIn(3);
  cl::CommandQueue mapQueue = cl.makeQueue();
  for (std::size_t k = 0; k < hostIn.size(); ++k) {
    hostIn[k].reserve(ctx, mapQueue, in.bytes());
    fillRandom(hostIn[k].data(), in.bytes(), 2000 + k);
  }
  hostOut.reserve(ctx, mapQueue, out.bytes());
  DeviceBuffer devIn, devOut;
  devIn.reserve(ctx, chain.inputBytes());
  devOut.reserve(ctx, chain.outputBytes());
  std::vector<std::vector<std::uint8_t>> side;
  cl::CommandQueue q = cl.makeQueue();
  const auto one = [&](int i) {
    clCall("serial frame", [&] {
      q.enqueueWriteBufferRect(devIn.buffer(), CL_TRUE, {0, 0, 0}, {0, 0, 0},
                               {in.rowBytes(), std::size_t(in.height), 1}, chain.inputPitch(), 0,
                               in.rowBytes(), 0, hostIn[std::size_t(i) % hostIn.size()].data());
      chain.enqueue(q, devIn.buffer(), devOut.buffer(), {}, &side);
      q.enqueueReadBufferRect(devOut.buffer(), CL_TRUE, {0, 0, 0}, {0, 0, 0},
                              {out.rowBytes(), std::size_t(out.height), 1}, chain.outputPitch(), 0,
                              out.rowBytes(), 0, hostOut.data());
    });
  };
  for (int i = 0; i < 3; ++i) one(i);
  const auto t0 = Clock::now();
  for (int i = 0; i < frames; ++i) one(i);
  const double sec = seconds(t0, Clock::now());
  r.serialFps = frames / sec;
  r.serialGBps = bytesPerFrame * frames / sec * 1e-9;
}

// Latency: the engine with one slot, so nothing else is in flight.
double latencyMs(ClContext& cl, const std::string& chainText, const FrameDesc& in, int frames,
                 EngineOptions::Transfer transfer) {
  std::shared_ptr<ClContext> shared(&cl, [](ClContext*) {});
  EngineOptions options;
  options.slots = 1;
  options.transfer = transfer;
  Engine engine(shared, Chain::parse(chainText), options);
  const int n = std::clamp(frames, 20, 100);  // within the stats window (120 frames)
  BenchSource source(in, n);
  TimingSink sink(1, n - 1);
  engine.run(source, sink);
  return engine.stats().latencyMs.p50;
}

}  // namespace

EngineBenchResult benchEngine(ClContext& cl, const std::string& chainText, int width, int height,
                              PixelFormat format, int frames, int slots,
                              EngineOptions::Transfer transfer) {
  if (frames < 1) throw std::invalid_argument("benchEngine: frames must be >= 1");
  const FrameDesc in{width, height, format};
  EngineBenchResult r;
  r.frames = frames;
  // The output size: configure a chain once (builds or loads the programs for every run).
  Chain probe = Chain::parse(chainText);
  probe.configure(cl, in);
  const double bytesPerFrame = double(in.bytes() + probe.output().bytes());
  timeEngine(cl, chainText, in, frames, slots, transfer, bytesPerFrame, r);
  timeSerial(cl, chainText, in, frames, bytesPerFrame, r);
  r.latencyMs = latencyMs(cl, chainText, in, frames, transfer);
  return r;
}

}  // namespace vf::bench
