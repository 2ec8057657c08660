#pragma once
// Sources, sinks and checks shared by the engine tests.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "pipeline/engine.hpp"
#include "tests/support/test_support.hpp"

namespace vf {
// Names the transfer mode in gtest's parameter printouts.
inline void PrintTo(EngineOptions::Transfer t, std::ostream* os) {
  *os << (t == EngineOptions::Transfer::Copy  ? "Copy"
          : t == EngineOptions::Transfer::Map ? "Map"
                                              : "Auto");
}
}  // namespace vf

namespace vf::test {

// The chain and the frame most engine tests run: small, and cheap on any device.
inline const std::string kChain = "gray,brightness=gain=1.2:bias=-10";
inline const FrameDesc kSmall{64, 48, PixelFormat::BGR8};

inline std::shared_ptr<ClContext> sharedContext() {
  return std::shared_ptr<ClContext>(&context(), [](ClContext*) {});  // the tests' own context
}

using Transfer = EngineOptions::Transfer;

inline EngineOptions engineOptions(int slots, Transfer transfer = Transfer::Auto,
                                   std::int64_t maxFrames = -1, std::string statsPath = "") {
  EngineOptions o;
  o.slots = slots;
  o.transfer = transfer;
  o.maxFrames = maxFrames;
  o.statsPath = std::move(statsPath);
  return o;
}

inline std::string transferName(Transfer t) {
  return t == Transfer::Copy ? "Copy" : t == Transfer::Map ? "Map" : "Auto";
}

// Frame `i` of a test stream: its own uniform random content (seeded by the index and the
// size). cv::RNG rather than randomFrame's mt19937: the reconfiguration test makes 720p frames.
inline cv::Mat streamFrame(std::uint64_t i, const FrameDesc& d) {
  cv::Mat m(d.height, d.width, cvTypeOf(d.format));
  cv::RNG rng(0x9E3779B97F4A7C15ull * (i + 1) + std::uint64_t(d.width) * 131 + d.height);
  rng.fill(m, cv::RNG::UNIFORM, 0, 256);
  m.at<std::uint8_t>(0, 0) |= 1;  // never all-zero
  return m;
}

// Which size and format each frame of a stream has: consecutive segments.
struct StreamPlan {
  std::vector<std::pair<int, FrameDesc>> segments;  // (frames, desc)

  static StreamPlan uniform(int frames, FrameDesc d) { return {{{frames, d}}}; }
  int total() const {
    int n = 0;
    for (const auto& s : segments) n += s.first;
    return n;
  }
  FrameDesc at(std::uint64_t i) const {
    for (const auto& s : segments) {
      if (i < std::uint64_t(s.first)) return s.second;
      i -= std::uint64_t(s.first);
    }
    throw std::out_of_range("StreamPlan::at");
  }
};

// The time TestSource gives frame i: irregular steps (a variable frame rate) in a 1/90000 base.
inline FrameTime testFrameTime(int i) {
  FrameTime t;
  t.num = 1;
  t.den = 90000;
  t.pts = 1000 + std::int64_t(i) * 3000 + (i % 3) * 1234;
  t.duration = 3000;
  return t;
}

// A source that produces the frames of `plan`; knobs for pacing, live policy and failures.
class TestSource : public FrameSource {
 public:
  explicit TestSource(StreamPlan plan, bool live = false) : plan_(std::move(plan)), live_(live) {}

  std::function<void(int)> pace;       // called before frame i is produced (sleep here)
  std::function<void(int)> afterFill;  // called once frame i is in its slot, before next() returns
  int throwAt = -1;                    // next() throws instead of producing this frame
  int noSlotAt = -1;                   // next() returns true without calling slot() for this frame
  int blockAt = -1;                    // next() blocks before this frame until release()

  bool live() const override { return live_; }
  std::int64_t frameCount() const override { return plan_.total(); }

  bool next(const SlotFn& slot, FrameTime& time) override {
    const int i = produced_;
    if (i >= plan_.total()) {
      ended_ = true;
      return false;
    }
    if (i == blockAt) {
      std::unique_lock<std::mutex> lock(mu_);
      blocked_ = true;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
    }
    if (pace) pace(i);
    if (i == throwAt) throw std::runtime_error("test source failed at frame " + std::to_string(i));
    ++produced_;
    if (i == noSlotAt) return true;
    const FrameDesc d = plan_.at(std::uint64_t(i));
    const FrameView v = slot(d);
    if (v.desc() != d || v.stride < d.rowBytes() || !v.data)
      throw std::logic_error("engine returned a bad slot view");
    copyInto(streamFrame(std::uint64_t(i), d), v);
    time = testFrameTime(i);
    if (afterFill) afterFill(i);
    return true;
  }

  int produced() const { return produced_; }
  bool ended() const { return ended_; }  // next() returned false
  // For blockAt: wait until next() is blocked; let it go on.
  bool waitBlocked(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return blocked_; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  StreamPlan plan_;
  bool live_;
  std::atomic<int> produced_{0};
  std::atomic<bool> ended_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool blocked_ = false, released_ = false;
};

// A sink that keeps a copy of every frame it gets (output and input) with its stats.
class CollectSink : public FrameSink {
 public:
  struct Frame {
    std::uint64_t index;
    cv::Mat output, input;
    FrameStats stats;
    std::vector<std::vector<std::uint8_t>> side;
    FrameTime time;
    std::vector<SideOutputInfo> sideInfo;
  };

  std::chrono::microseconds delay{0};  // slow sink: sleep per frame
  int throwAt = -1;                    // consume() number n throws
  int wantsStopAfter = -1;             // wantsStop() once this many frames arrived
  std::function<void(const FrameResult&)> onConsume;
  bool keep = true;  // keep copies of the frames (false: count only)

  void consume(const FrameResult& r) override {
    const int n = consumed_.fetch_add(1);
    if (finished_.load()) afterFinish_ = true;
    if (onConsume) onConsume(r);
    if (n == throwAt) throw std::runtime_error("test sink failed at frame " + std::to_string(n));
    if (keep) {
      Frame f{r.stats.index, copyOf(r.output), copyOf(r.input), r.stats, {}, r.time, {}};
      if (r.side) f.side = *r.side;
      if (r.sideInfo) f.sideInfo = *r.sideInfo;
      std::lock_guard<std::mutex> lock(mu_);
      frames_.push_back(std::move(f));
    }
    if (delay.count()) std::this_thread::sleep_for(delay);
  }
  void finish() override { finished_.fetch_add(1); }
  bool wantsStop() const override {
    return wantsStopAfter >= 0 && consumed_.load() >= wantsStopAfter;
  }

  int consumed() const { return consumed_.load(); }
  int finishCalls() const { return finished_.load(); }
  bool consumedAfterFinish() const { return afterFinish_.load(); }
  std::vector<Frame> frames() const {
    std::lock_guard<std::mutex> lock(mu_);
    return frames_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Frame> frames_;
  std::atomic<int> consumed_{0};
  std::atomic<int> finished_{0};
  std::atomic<bool> afterFinish_{false};
};

// The single-frame result of frame `index` (Chain::runOnce on its own chain), cached.
inline const cv::Mat& referenceOutput(const std::string& chainText, std::uint64_t index,
                                      const FrameDesc& d) {
  static std::map<std::tuple<std::string, std::uint64_t, int, int, int>, cv::Mat> cache;
  static std::map<std::string, Chain> chains;
  const auto key = std::make_tuple(chainText, index, d.width, d.height, int(d.format));
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto c = chains.find(chainText);
  if (c == chains.end()) c = chains.emplace(chainText, Chain::parse(chainText)).first;
  Chain& chain = c->second;
  if (!chain.configured() || chain.input() != d) chain.configure(context(), d);
  const cv::Mat in = streamFrame(index, d);
  cv::Mat out = makeMat(chain.output());
  out.setTo(cv::Scalar::all(0x5A));
  chain.runOnce(context(), queue(), viewOf(in), viewOf(out));
  return cache.emplace(key, out).first->second;
}

// Every frame the sink got: indices strictly increasing, input as the source made it, output
// equal to the single-frame result. Returns the number of frames checked.
inline std::size_t expectFramesCorrect(const std::vector<CollectSink::Frame>& frames,
                                       const std::string& chainText, const StreamPlan& plan) {
  std::size_t bad = 0;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const auto& f = frames[k];
    if (k > 0) {
      EXPECT_GT(f.index, frames[k - 1].index) << "frames out of order at " << k;
    }
    EXPECT_EQ(f.stats.index, f.index);
    const FrameDesc d = plan.at(f.index);
    const cv::Mat in = streamFrame(f.index, d);
    const cv::Mat& ref = referenceOutput(chainText, f.index, d);
    if (f.input.size() != in.size() || f.input.type() != in.type() || maxAbsDiff(f.input, in)) {
      ADD_FAILURE() << "frame " << f.index << ": the input view is not the captured frame";
      if (++bad > 5) break;
      continue;
    }
    if (f.output.size() != ref.size() || f.output.type() != ref.type()) {
      ADD_FAILURE() << "frame " << f.index << ": output " << f.output.cols << "x" << f.output.rows
                    << " type " << f.output.type() << ", expected " << ref.cols << "x" << ref.rows
                    << " type " << ref.type();
      if (++bad > 5) break;
      continue;
    }
    const int diff = maxAbsDiff(f.output, ref);
    if (diff != 0) {
      ADD_FAILURE() << "frame " << f.index << " differs from its single-frame result by " << diff;
      if (++bad > 5) break;
    }
  }
  return frames.size();
}

// Aborts the test program when a run hangs (a deadlock must fail CI, not stall it).
class Watchdog {
 public:
  explicit Watchdog(std::chrono::seconds limit, std::string what = "engine run")
      : thread_([this, limit, what] {
          std::unique_lock<std::mutex> lock(mu_);
          if (!cv_.wait_for(lock, limit, [&] { return done_; })) {
            std::fprintf(stderr, "WATCHDOG: %s did not finish in %lld s (deadlock?)\n",
                         what.c_str(), static_cast<long long>(limit.count()));
            std::abort();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

inline void sleepUs(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

// Frame k of a test stream in which every frame has its own content, histogram and stretch: a
// real frame (several frames of the clip apart) with its own gain and bias, every third one
// random.
inline cv::Mat streamRealFrame(int k, int type, int width, int height) {
  if (k % 3 == 2) return randomFrame(width, height, type, 2000 + k);
  cv::Mat m;
  realFrame(5 + 13 * k, type, width, height).convertTo(m, -1, 0.3 + 0.2 * (k % 5), 10.0 * (k % 4));
  return m;
}

// An offline source of streamRealFrame frames.
class RealStreamSource : public FrameSource {
 public:
  RealStreamSource(int frames, int type, int width, int height)
      : frames_(frames), type_(type), width_(width), height_(height) {}
  bool live() const override { return false; }
  std::int64_t frameCount() const override { return frames_; }
  bool next(const SlotFn& slot, FrameTime& /*time*/) override {
    if (produced_ == frames_) return false;
    const cv::Mat m = streamRealFrame(produced_++, type_, width_, height_);
    copyInto(m, slot(viewOf(m).desc()));
    return true;
  }

 private:
  int frames_, type_, width_, height_, produced_ = 0;
};

// Runs `chain` over `frames` frames of RealStreamSource through an engine with `slots` slots,
// under a watchdog, and returns what reached the sink.
inline std::vector<CollectSink::Frame> runRealStream(const std::string& chain, int frames, int type,
                                                     int width, int height, int slots) {
  RealStreamSource source(frames, type, width, height);
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(chain), engineOptions(slots));
  {
    Watchdog dog(std::chrono::seconds(60));
    engine.run(source, sink);
  }
  return sink.frames();
}

}  // namespace vf::test
