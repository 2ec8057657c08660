#include "app/frame_split.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <thread>

namespace vf::app {

struct FrameSplit::Part : FrameSource, FrameSink {
  FrameSplit& split;
  int index;
  std::deque<std::int64_t> order;  // the stream positions of this part's frames, in its order
  Part(FrameSplit& s, int i) : split(s), index(i) {}

  bool live() const override { return false; }
  std::int64_t frameCount() const override { return split.source_.frameCount(); }
  double fps() const override { return split.source_.fps(); }
  bool next(const SlotFn& slot, FrameTime& time) override { return split.take(index, slot, time); }
  void consume(const FrameResult& frame) override { split.deliver(index, frame); }
};

FrameSplit::FrameSplit(FrameSource& source, FrameSink& out, int ways, std::int64_t maxFrames,
                       bool staged)
    : source_(source), out_(out), maxFrames_(maxFrames), staged_(staged) {
  for (int i = 0; i < ways; ++i) parts_.push_back(std::make_unique<Part>(*this, i));
}

FrameSplit::~FrameSplit() = default;

FrameSource& FrameSplit::source(int i) { return *parts_.at(i); }
FrameSink& FrameSplit::sink(int i) { return *parts_.at(i); }

void FrameSplit::FreeAligned::operator()(std::uint8_t* p) const { std::free(p); }

bool FrameSplit::take(int part, const FrameSource::SlotFn& slot, FrameTime& time) {
  std::lock_guard<std::mutex> lock(takeMutex_);
  if (ended_ || (maxFrames_ >= 0 && taken_ >= maxFrames_)) return false;
  FrameDesc desc;
  const FrameSource::SlotFn toStaging = [&](const FrameDesc& d) {
    desc = d;
    if (d.bytes() > stagingBytes_) {
      const std::size_t bytes = (d.bytes() + 4095) / 4096 * 4096;
      staging_.reset(static_cast<std::uint8_t*>(std::aligned_alloc(4096, bytes)));
      if (!staging_) throw std::bad_alloc();
      stagingBytes_ = bytes;
    }
    return FrameView{staging_.get(), d.width, d.height, d.rowBytes(), d.format};
  };
  bool ok = false;
  try {
    ok = source_.next(staged_ ? toStaging : slot, time);
    if (ok && staged_) {
      const FrameView v = slot(desc);
      std::memcpy(v.data, staging_.get(), desc.bytes());
    }
  } catch (...) {
    ended_ = true;  // the other parts end too; this one's engine reports the error
    throw;
  }
  if (!ok) {
    ended_ = true;
    return false;
  }
  std::lock_guard<std::mutex> turn(m_);
  parts_[part]->order.push_back(taken_++);
  return true;
}

void FrameSplit::deliver(int part, const FrameResult& frame) {
  std::unique_lock<std::mutex> lock(m_);
  auto& order = parts_[part]->order;
  if (order.empty()) return;  // cannot happen: an engine delivers only frames it took
  const std::int64_t seq = order.front();
  order.pop_front();
  turn_.wait(lock, [&] { return next_ == seq || aborted_; });
  if (aborted_ && next_ != seq) return;
  lock.unlock();
  // Only the part whose turn it is gets here: the output sees one frame at a time, in order.
  try {
    out_.consume(frame);
  } catch (...) {
    abort();
    throw;
  }
  lock.lock();
  ++next_;
  turn_.notify_all();
}

void FrameSplit::abort() {
  {
    std::lock_guard<std::mutex> lock(m_);
    aborted_ = true;
  }
  turn_.notify_all();
}

std::int64_t FrameSplit::written() const {
  std::lock_guard<std::mutex> lock(m_);
  return next_;
}

namespace {

EngineStats merged(const std::vector<EngineStats>& all) {
  EngineStats st = all.front();
  for (std::size_t i = 1; i < all.size(); ++i) {
    st.framesIn += all[i].framesIn;
    st.framesOut += all[i].framesOut;
    st.dropped += all[i].dropped;
    st.fps += all[i].fps;
    st.elapsedSec = std::max(st.elapsedSec, all[i].elapsedSec);
  }
  return st;
}

}  // namespace

EngineStats runSplit(const std::vector<std::shared_ptr<ClContext>>& devices,
                     const std::function<Chain()>& makeChain, const FrameDesc& in,
                     FrameSource& source, FrameSink& out, const EngineOptions& options,
                     const std::function<void(Engine*, bool)>& track,
                     const std::function<void(FrameSplit*)>& onSplit,
                     std::vector<std::uint64_t>* framesPerDevice) {
  const int n = static_cast<int>(devices.size());
  FrameSplit split(source, out, n, options.maxFrames);
  std::vector<std::unique_ptr<Engine>> engines;
  EngineOptions eo = options;
  eo.maxFrames = -1;  // the split counts the frames
  for (const auto& d : devices) {
    Chain chain = makeChain();
    chain.configure(*d, in);
    engines.push_back(std::make_unique<Engine>(d, std::move(chain), eo));
  }
  std::vector<std::exception_ptr> errors(n);
  onSplit(&split);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    track(engines[i].get(), true);
    threads.emplace_back([&, i] {
      try {
        engines[i]->run(split.source(i), split.sink(i));
      } catch (...) {
        errors[i] = std::current_exception();
        split.abort();  // the frames after this engine's cannot be written in order
        for (auto& e : engines) e->stop();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : engines) track(e.get(), false);
  onSplit(nullptr);
  std::exception_ptr first;
  for (auto& e : errors)
    if (e && !first) first = e;
  try {
    out.finish();
  } catch (...) {
    if (!first) first = std::current_exception();
  }
  if (first) std::rethrow_exception(first);
  std::vector<EngineStats> stats;
  for (auto& e : engines) stats.push_back(e->stats());
  if (framesPerDevice)
    for (const auto& st : stats) framesPerDevice->push_back(st.framesOut);
  return merged(stats);
}

}  // namespace vf::app
