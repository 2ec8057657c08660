// The streaming engine: order, completeness, backpressure, live drops, reconfiguration, posted
// changes, a chain without stage events (statistics: test_engine_stats). Every output is compared
// with the single-frame result of the same input (Chain::runOnce), matched by index; every frame
// has its own random content.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pipeline/engine_stats.hpp"
#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;
using namespace std::chrono_literals;

namespace {

enum class Pace { SlowSink, SlowSource, BurstySource };

std::string paceName(Pace p) {
  switch (p) {
    case Pace::SlowSink:
      return "SlowSink";
    case Pace::SlowSource:
      return "SlowSource";
    case Pace::BurstySource:
      return "BurstySource";
  }
  return "?";
}

// The time a frame reaches the sink with is the one its source gave it.
void expectTimeOf(const CollectSink::Frame& f) {
  const FrameTime want = testFrameTime(int(f.index));
  EXPECT_EQ(f.time.pts, want.pts) << "frame " << f.index;
  EXPECT_EQ(f.time.duration, want.duration) << "frame " << f.index;
  EXPECT_EQ(f.time.num, want.num);
  EXPECT_EQ(f.time.den, want.den);
}

class EngineOrder : public ::testing::TestWithParam<std::tuple<int, Pace, Transfer>> {};

TEST_P(EngineOrder, OfflineDeliversEveryFrameOnceInOrder) {
  const auto [slots, pace, transfer] = GetParam();
  const int frames = 500;
  const StreamPlan plan = StreamPlan::uniform(frames, kSmall);
  TestSource source(plan);
  CollectSink sink;
  switch (pace) {
    case Pace::SlowSink:
      sink.delay = 300us;
      break;
    case Pace::SlowSource:
      source.pace = [](int) { sleepUs(300); };
      break;
    case Pace::BurstySource:
      // Bursts of 25 frames as fast as possible, then a pause longer than the pipeline.
      source.pace = [](int i) {
        if (i % 25 == 0) sleepUs(5000);
      };
      sink.delay = std::chrono::microseconds(50);
      break;
  }
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(slots, transfer));
  {
    Watchdog dog(60s);
    engine.run(source, sink);
  }
  const auto got = sink.frames();
  ASSERT_EQ(got.size(), std::size_t(frames));
  for (int i = 0; i < frames; ++i) {
    ASSERT_EQ(got[std::size_t(i)].index, std::uint64_t(i));
    expectTimeOf(got[std::size_t(i)]);
  }
  expectFramesCorrect(got, kChain, plan);
  EXPECT_EQ(sink.finishCalls(), 1);
  EXPECT_FALSE(sink.consumedAfterFinish());
  const EngineStats st = engine.stats();
  EXPECT_EQ(st.framesIn, std::uint64_t(frames));
  EXPECT_EQ(st.framesOut, std::uint64_t(frames));
  EXPECT_EQ(st.dropped, 0u);
}

INSTANTIATE_TEST_SUITE_P(SlotsAndPace, EngineOrder,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4),
                                            ::testing::Values(Pace::SlowSink, Pace::SlowSource,
                                                              Pace::BurstySource),
                                            ::testing::Values(Transfer::Copy, Transfer::Map)),
                         [](const auto& info) {
                           return "Slots" + std::to_string(std::get<0>(info.param)) +
                                  paceName(std::get<1>(info.param)) +
                                  transferName(std::get<2>(info.param));
                         });

// A live source faster than the sink: the engine drops the oldest waiting frames, counts them,
// and what comes out is still in order and correct.
class EngineLive : public ::testing::TestWithParam<std::tuple<int, Transfer>> {};

TEST_P(EngineLive, DropsOldestAndCounts) {
  const auto [slots, transfer] = GetParam();
  const int frames = 300;
  const StreamPlan plan = StreamPlan::uniform(frames, kSmall);
  TestSource source(plan, /*live=*/true);
  source.pace = [](int) { sleepUs(200); };
  CollectSink sink;
  sink.delay = 2ms;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(slots, transfer));
  {
    Watchdog dog(60s);
    engine.run(source, sink);
  }
  const auto got = sink.frames();
  const EngineStats st = engine.stats();
  EXPECT_EQ(st.framesIn, std::uint64_t(frames));
  EXPECT_EQ(st.framesOut, got.size());
  EXPECT_EQ(st.dropped + st.framesOut, st.framesIn);
  if (slots >= 2) {
    EXPECT_GT(st.dropped, 0u) << "a sink 10x slower than the source must make a live source drop";
    EXPECT_LT(got.size(), std::size_t(frames) / 2);
  }
  ASSERT_FALSE(got.empty());
  // The last frame captured is never dropped (nothing overwrites it).
  EXPECT_EQ(got.back().index, std::uint64_t(frames - 1));
  // Each frame keeps its own time, also when the slot it came in was overwritten by a newer one.
  for (const auto& f : got) expectTimeOf(f);
  expectFramesCorrect(got, kChain, plan);
  EXPECT_EQ(sink.finishCalls(), 1);
}

INSTANTIATE_TEST_SUITE_P(Slots, EngineLive,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4),
                                            ::testing::Values(Transfer::Copy, Transfer::Map)),
                         [](const auto& info) {
                           return "Slots" + std::to_string(std::get<0>(info.param)) +
                                  transferName(std::get<1>(info.param));
                         });

// Size and format change mid-stream: the chain is reconfigured, no frame lost or reordered.
TEST(Engine, ReconfiguresMidStreamWithoutLosingFrames) {
  // More frames per segment than slots, so each change meets a full pipeline.
  const StreamPlan plan{{{7, {640, 480, PixelFormat::BGR8}},
                         {7, {1280, 720, PixelFormat::BGR8}},
                         {7, {640, 480, PixelFormat::BGR8}},
                         {5, {640, 480, PixelFormat::Gray8}},
                         {5, {64, 48, PixelFormat::BGRA8}},
                         {5, {1280, 720, PixelFormat::BGR8}}}};
  for (const std::string& chainText : {kChain, std::string("brightness=gain=0.8:bias=7")}) {
    for (const auto& [slots, transfer] : {std::pair{1, Transfer::Copy},
                                          {3, Transfer::Copy},
                                          {1, Transfer::Map},
                                          {3, Transfer::Map}}) {
      SCOPED_TRACE(chainText + ", slots " + std::to_string(slots) + ", " + transferName(transfer));
      TestSource source(plan);
      CollectSink sink;
      Engine engine(sharedContext(), Chain::parse(chainText), engineOptions(slots, transfer));
      {
        Watchdog dog(60s);
        engine.run(source, sink);
      }
      const auto got = sink.frames();
      ASSERT_EQ(got.size(), std::size_t(plan.total()));
      for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].index, i);
      expectFramesCorrect(got, chainText, plan);
      // brightness alone keeps the format: the output followed the input's changes.
      if (chainText[0] == 'b') {
        EXPECT_EQ(got[22].output.type(), CV_8UC1);
        EXPECT_EQ(got[27].output.type(), CV_8UC4);
      }
      EXPECT_EQ(got[8].output.cols, 1280);
      EXPECT_EQ(got[15].output.cols, 640);
      EXPECT_EQ(sink.finishCalls(), 1);
    }
  }
}

// A posted parameter change applies between two frames: every frame before it has the old
// result, every frame from it on the new one.
TEST(Engine, PostedLiveParameterChangeAppliesBetweenFrames) {
  const int frames = 200;
  const StreamPlan plan = StreamPlan::uniform(frames, kSmall);
  const std::string before = "gray,brightness=gain=1.2:bias=-10";
  const std::string after = "gray,brightness=gain=0.5:bias=30";
  TestSource source(plan);
  source.pace = [](int) { sleepUs(100); };
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(before), engineOptions(3));
  sink.onConsume = [&](const FrameResult& r) {
    if (r.stats.index == 60)
      engine.post([](Chain& c) {
        c.stage(1).params().set("gain", "0.5");
        c.stage(1).params().set("bias", "30");
      });
  };
  {
    Watchdog dog(60s);
    engine.run(source, sink);
  }
  const auto got = sink.frames();
  ASSERT_EQ(got.size(), std::size_t(frames));
  std::size_t firstNew = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto& f = got[i];
    const bool isOld = maxAbsDiff(f.output, referenceOutput(before, f.index, kSmall)) == 0;
    const bool isNew = maxAbsDiff(f.output, referenceOutput(after, f.index, kSmall)) == 0;
    ASSERT_TRUE(isOld || isNew) << "frame " << f.index << " matches neither parameter set";
    if (isNew && firstNew == got.size()) firstNew = i;
    if (firstNew < i) {
      EXPECT_TRUE(isNew) << "frame " << f.index << " went back to old parameters";
    }
  }
  EXPECT_GT(firstNew, 60u);
  EXPECT_LT(firstNew, got.size()) << "the posted change never took effect";
  EXPECT_EQ(engine.chain().stage(1).params().number("gain"), 0.5);
}

// A posted change that needs a reconfiguration (a stage switched off changes the output
// format) drains the frames in flight first; every frame is still delivered in order.
TEST(Engine, PostedStageToggleReconfigures) {
  const int frames = 120;
  const StreamPlan plan = StreamPlan::uniform(frames, kSmall);
  const std::string withGray = kChain, withoutGray = "brightness=gain=1.2:bias=-10";
  TestSource source(plan);
  source.pace = [](int) { sleepUs(100); };
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(withGray), engineOptions(2));
  sink.onConsume = [&](const FrameResult& r) {
    if (r.stats.index == 40) engine.post([](Chain& c) { c.setEnabled(0, false); });
  };
  {
    Watchdog dog(60s);
    engine.run(source, sink);
  }
  const auto got = sink.frames();
  ASSERT_EQ(got.size(), std::size_t(frames));
  std::size_t switched = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].index, i);
    const bool gray = got[i].output.type() == CV_8UC1;
    if (!gray && !switched) switched = i;
    if (switched) {
      ASSERT_FALSE(gray) << "frame " << i << " went back to gray";
    }
    EXPECT_EQ(maxAbsDiff(got[i].output,
                         referenceOutput(gray ? withGray : withoutGray, got[i].index, kSmall)),
              0)
        << "frame " << i;
    EXPECT_EQ(got[i].stats.stageMs.size(), 2u);
    if (!gray) {
      EXPECT_EQ(got[i].stats.stageMs[0], 0.0) << "a disabled stage has no time";
    }
  }
  EXPECT_GT(switched, 40u);
}

// Side outputs (the histogram) travel with their frame: each frame's histogram equals the one
// Chain::runOnce reads back for the same input, though every slot reuses its vectors.
TEST(Engine, SideOutputsReachTheSinkWithTheirFrame) {
  const std::string text = "gray,hist,brightness=gain=1.2:bias=-10";
  const int frames = 150;
  const StreamPlan plan = StreamPlan::uniform(frames, kSmall);
  Chain reference = Chain::parse(text);
  reference.configure(context(), kSmall);
  for (Transfer transfer : {Transfer::Copy, Transfer::Map}) {
    SCOPED_TRACE(transferName(transfer));
    TestSource source(plan);
    CollectSink sink;
    sink.delay = 100us;
    Engine engine(sharedContext(), Chain::parse(text), engineOptions(3, transfer));
    {
      Watchdog dog(60s);
      engine.run(source, sink);
    }
    const auto got = sink.frames();
    ASSERT_EQ(got.size(), std::size_t(frames));
    expectFramesCorrect(got, text, plan);
    for (const auto& f : got) {
      const cv::Mat in = streamFrame(f.index, kSmall);
      cv::Mat out = makeMat(reference.output());
      std::vector<std::vector<std::uint8_t>> side;
      reference.runOnce(context(), queue(), viewOf(in), viewOf(out), &side);
      ASSERT_EQ(side.size(), 1u);
      ASSERT_EQ(f.side.size(), 1u) << "frame " << f.index;
      ASSERT_EQ(f.sideInfo.size(), 1u) << "frame " << f.index;
      EXPECT_EQ(f.sideInfo[0].name, "histogram");
      EXPECT_EQ(f.sideInfo[0].stage, 1) << "hist is the chain's second stage";
      ASSERT_EQ(f.side[0].size(), 256 * sizeof(std::uint32_t));
      ASSERT_EQ(f.side[0], side[0]) << "frame " << f.index << " has another frame's histogram";
    }
  }
}

TEST(Engine, MaxFramesStopsInput) {
  const StreamPlan plan = StreamPlan::uniform(100, kSmall);
  TestSource source(plan);
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2, Transfer::Auto, 37));
  {
    Watchdog dog(60s);
    engine.run(source, sink);
  }
  EXPECT_EQ(expectFramesCorrect(sink.frames(), kChain, plan), 37u);
  EXPECT_EQ(engine.stats().framesIn, 37u);
  EXPECT_EQ(sink.finishCalls(), 1);
}

// The chain without stage events: the same bytes and side outputs as with them, null events for
// every stage but the last, and run.done completing after the whole frame.
TEST(Chain, WithoutStageEventsSameResult) {
  const std::string text = "gray,blur,sobel,hist,brightness=gain=1.3";
  const FrameDesc desc{97, 61, PixelFormat::BGR8};
  Chain timed = Chain::parse(text), untimed = Chain::parse(text);
  timed.configure(context(), desc);
  untimed.configure(context(), desc);
  cl::CommandQueue q = context().makeQueue();
  for (int k = 0; k < 4; ++k) {
    const cv::Mat in = streamFrame(std::uint64_t(k), desc);
    const std::size_t inBytes = desc.bytes(), outBytes = timed.output().bytes();
    cl::Buffer dIn(context().context(), CL_MEM_READ_WRITE, inBytes);
    q.enqueueWriteBuffer(dIn, CL_TRUE, 0, inBytes, in.data);
    std::vector<std::uint8_t> a(outBytes, 0x5A), b(outBytes, 0xA5);
    cl::Buffer outA(context().context(), CL_MEM_READ_WRITE, outBytes);
    cl::Buffer outB(context().context(), CL_MEM_READ_WRITE, outBytes);
    q.enqueueWriteBuffer(outA, CL_TRUE, 0, outBytes, a.data());
    q.enqueueWriteBuffer(outB, CL_TRUE, 0, outBytes, b.data());
    std::vector<std::vector<std::uint8_t>> sideA, sideB;
    const ChainRun ra = timed.enqueue(q, dIn, outA, {}, &sideA, true);
    const ChainRun rb = untimed.enqueue(q, dIn, outB, {}, &sideB, false);
    ASSERT_TRUE(rb.done());
    rb.done.wait();
    ra.done.wait();
    // Each pass's events sit on its first stage (hist+brightness is one fused pass): the first
    // and the last pass keep theirs, so the frame's span is known and run.done marks its end;
    // the passes between have none.
    const std::vector<std::string> names = untimed.timingNames();
    std::size_t firstPass = names.size(), lastPass = 0;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!names[i].empty()) {
        firstPass = std::min(firstPass, i);
        lastPass = i;
      }
    ASSERT_LT(firstPass + 1, lastPass);  // passes in between to test
    for (std::size_t i = 0; i < lastPass; ++i) EXPECT_TRUE(ra.stages[i].last()) << "stage " << i;
    for (std::size_t i = firstPass + 1; i < lastPass; ++i)
      EXPECT_FALSE(rb.stages[i].last()) << "stage " << i << " has an event";
    EXPECT_TRUE(rb.stages[firstPass].first());
    EXPECT_TRUE(rb.stages[lastPass].last());
    q.enqueueReadBuffer(outA, CL_TRUE, 0, outBytes, a.data());
    q.enqueueReadBuffer(outB, CL_TRUE, 0, outBytes, b.data());
    EXPECT_EQ(a, b) << "frame " << k;
    EXPECT_EQ(sideA, sideB) << "frame " << k;
  }
}

}  // namespace
