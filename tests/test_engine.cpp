// The streaming engine: order, completeness, backpressure, live drops, reconfiguration, posted
// changes and statistics. Every output is compared with the single-frame result of the same
// input (Chain::runOnce), matched by index; every frame has its own random content.
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

TEST(Engine, StatsFileHasOneJsonLinePerFrame) {
  const int frames = 40;
  const StreamPlan plan = StreamPlan::uniform(frames, kSmall);
  const std::string path = ::testing::TempDir() + "/engine_stats_" +
                           std::to_string(reinterpret_cast<std::uintptr_t>(&plan)) + ".jsonl";
  // Stage timing on 1 frame in 8 as the app runs offline: a stats file still gets every frame's.
  EngineOptions options = engineOptions(2, Transfer::Auto, -1, path);
  options.timingEvery = 8;
  // Unfused, a key per stage (duplicates numbered); fused, one key for the pass.
  for (const bool fuse : {false, true}) {
    SCOPED_TRACE(fuse ? "fused" : "unfused");
    TestSource source(plan);
    CollectSink sink;
    Chain chain = Chain::parse("gray,brightness,brightness=gain=2");
    chain.setFusion(fuse ? Chain::Fusion::On : Chain::Fusion::Off);
    Engine engine(sharedContext(), std::move(chain), options);
    {
      Watchdog dog(60s);
      engine.run(source, sink);
    }
    const std::vector<std::string> expected =
        fuse ? std::vector<std::string>{"gray+brightness+brightness"}
             : std::vector<std::string>{"gray", "brightness#1", "brightness#2"};
    std::ifstream in(path);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line);  // throws (and fails the test) on bad JSON
      EXPECT_EQ(j.at("index"), n) << line;
      EXPECT_EQ(j.at("stages").size(), expected.size()) << line;
      for (const std::string& stage : expected)
        EXPECT_GE(j.at("stages").at(stage).get<double>(), 0.0) << stage << " in " << line;
      for (const char* key : {"upload_ms", "download_ms", "queue_wait_ms", "latency_ms"})
        EXPECT_GE(j.at(key).get<double>(), 0.0) << key << " in " << line;
      ++n;
    }
    EXPECT_EQ(n, frames);
    std::remove(path.c_str());
  }
}

TEST(Engine, RollingStatsDescribeTheRun) {
  const int frames = 150;
  TestSource source(StreamPlan::uniform(frames, kSmall));
  CollectSink sink;
  Chain chain = Chain::parse(kChain);
  chain.setFusion(Chain::Fusion::Off);  // each stage timed alone (the fused pass: the test below)
  Engine engine(sharedContext(), std::move(chain), engineOptions(2));
  {
    Watchdog dog(60s);
    engine.run(source, sink);
  }
  const EngineStats st = engine.stats();
  ASSERT_EQ(st.stageNames, (std::vector<std::string>{"gray", "brightness"}));
  ASSERT_EQ(st.stageMs.size(), 2u);
  for (const auto& d : st.stageMs) {
    EXPECT_GT(d.mean, 0.0);
    EXPECT_LE(d.p50, d.p99);
  }
  EXPECT_GT(st.uploadMs.mean, 0.0);
  EXPECT_GT(st.downloadMs.mean, 0.0);
  EXPECT_GT(st.latencyMs.p50, 0.0);
  EXPECT_GT(st.submitMs.mean, 0.0);
  EXPECT_LE(st.submitMs.p50, st.submitMs.p99);
  EXPECT_GT(st.fps, 0.0);
  EXPECT_EQ(st.framesOut, std::uint64_t(frames));
  // Per-frame stats: the latency covers the device work it waited for.
  for (const auto& f : sink.frames()) {
    EXPECT_GE(f.stats.latencyMs + 1e-3,
              f.stats.uploadMs + f.stats.stageMs[0] + f.stats.stageMs[1] + f.stats.downloadMs)
        << "frame " << f.index;
    EXPECT_GE(f.stats.queueWaitMs, 0.0);
  }
}

// Fused, the pass is timed once, on its first stage under its label; the other stage has none.
TEST(Engine, RollingStatsTimeAFusedPassAsOne) {
  TestSource source(StreamPlan::uniform(60, kSmall));
  CollectSink sink;
  Chain chain = Chain::parse(kChain);
  chain.setFusion(Chain::Fusion::On);  // a CPU test device runs unfused by default
  Engine engine(sharedContext(), std::move(chain), engineOptions(2));
  {
    Watchdog dog(60s);
    engine.run(source, sink);
  }
  const EngineStats st = engine.stats();
  ASSERT_EQ(st.stageNames, (std::vector<std::string>{"gray+brightness", ""}));
  ASSERT_EQ(st.stageMs.size(), 2u);
  EXPECT_GT(st.stageMs[0].mean, 0.0);
  EXPECT_EQ(st.stageMs[1].mean, 0.0);
  EXPECT_EQ(expectFramesCorrect(sink.frames(), kChain, StreamPlan::uniform(60, kSmall)), 60u);
}

// Stage timing on 1 frame in 3: the other frames' kernels go without events, which must change
// nothing but their stats. Every frame is still correct (its own content, its own histogram),
// untimed frames carry no stage times, timed ones all of them, and the rolling statistics come
// from the timed frames. The chain ends in hist (the last stage always has events) and, second,
// in gray on a gray frame, which enqueues nothing (the chain marks the frame's end itself).
TEST(Engine, TimingOneFrameInThreeChangesOnlyTheStats) {
  const int frames = 60;
  for (const auto& [text, desc] :
       {std::pair<std::string, FrameDesc>{"gray,blur,sobel,brightness=gain=1.5,hist", kSmall},
        std::pair<std::string, FrameDesc>{"blur,sobel,gray",
                                          FrameDesc{64, 48, PixelFormat::Gray8}}}) {
    for (Transfer transfer : {Transfer::Copy, Transfer::Map}) {
      SCOPED_TRACE(text + " " + transferName(transfer));
      const StreamPlan plan = StreamPlan::uniform(frames, desc);
      TestSource source(plan);
      CollectSink sink;
      EngineOptions options = engineOptions(3, transfer);
      options.timingEvery = 3;
      Engine engine(sharedContext(), Chain::parse(text), options);
      {
        Watchdog dog(60s);
        engine.run(source, sink);
      }
      const auto got = sink.frames();
      ASSERT_EQ(got.size(), std::size_t(frames));
      expectFramesCorrect(got, text, plan);
      Chain reference = Chain::parse(text);
      reference.configure(context(), desc);
      int timed = 0;
      for (const auto& f : got) {
        if (f.index % 3 == 0) {
          ++timed;
          ASSERT_EQ(f.stats.stageMs.size(), reference.size()) << "frame " << f.index;
        } else {
          EXPECT_TRUE(f.stats.stageMs.empty()) << "frame " << f.index;
        }
        if (!reference.sideOutputs().empty()) {
          const cv::Mat in = streamFrame(f.index, desc);
          cv::Mat out = makeMat(reference.output());
          std::vector<std::vector<std::uint8_t>> side;
          reference.runOnce(context(), queue(), viewOf(in), viewOf(out), &side);
          ASSERT_EQ(f.side.size(), 1u);
          ASSERT_EQ(f.side[0], side[0]) << "frame " << f.index;
        }
      }
      EXPECT_EQ(timed, frames / 3);
      const EngineStats st = engine.stats();
      ASSERT_EQ(st.stageMs.size(), reference.size());
      EXPECT_GT(st.stageMs[1].mean, 0.0);  // blur, sobel: real work, so a real time
    }
  }
  EngineOptions bad = engineOptions(2);
  bad.timingEvery = 0;
  EXPECT_THROW(Engine(sharedContext(), Chain::parse(kChain), bad), UserError);
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
    // Each pass's events sit on its first stage (hist+brightness is one fused pass): the last
    // pass keeps its event, so run.done marks the frame's end.
    const std::vector<std::string> names = untimed.timingNames();
    std::size_t lastPass = 0;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!names[i].empty()) lastPass = i;
    for (std::size_t i = 0; i < lastPass; ++i) {
      EXPECT_TRUE(ra.stages[i].last()) << "stage " << i;
      EXPECT_FALSE(rb.stages[i].last()) << "stage " << i << " has an event";
    }
    EXPECT_TRUE(rb.stages[lastPass].last());
    q.enqueueReadBuffer(outA, CL_TRUE, 0, outBytes, a.data());
    q.enqueueReadBuffer(outB, CL_TRUE, 0, outBytes, b.data());
    EXPECT_EQ(a, b) << "frame " << k;
    EXPECT_EQ(sideA, sideB) << "frame " << k;
  }
}

TEST(EngineStatsMath, DistributionIsNearestRank) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const auto d = distribution(v);
  EXPECT_DOUBLE_EQ(d.mean, 50.5);
  EXPECT_DOUBLE_EQ(d.p50, 50);
  EXPECT_DOUBLE_EQ(d.p99, 99);
  const auto one = distribution({3.5});
  EXPECT_DOUBLE_EQ(one.p50, 3.5);
  EXPECT_DOUBLE_EQ(one.p99, 3.5);
  EXPECT_EQ(distribution({}).mean, 0.0);
}

TEST(EngineStatsMath, JsonLineEscapesAndNamesDuplicates) {
  EXPECT_EQ(stageKeys({"blur", "sobel", "blur"}),
            (std::vector<std::string>{"blur#0", "sobel", "blur#2"}));
  FrameStats f;
  f.index = 3;
  f.stageMs = {0.5, 0.25};
  f.uploadMs = 1;
  f.downloadMs = 2;
  f.queueWaitMs = 0.125;
  f.latencyMs = 4.123456;
  const std::string line = statsJsonLine(f, {"a\"b", "c"});
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one line";
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j.at("index"), 3);
  EXPECT_EQ(j.at("stages").at("a\"b"), 0.5);  // the quote escaped, the name read back whole
  EXPECT_EQ(j.at("stages").at("c"), 0.25);
  EXPECT_EQ(j.at("upload_ms"), 1.0);
  EXPECT_EQ(j.at("download_ms"), 2.0);
  EXPECT_EQ(j.at("queue_wait_ms"), 0.125);
  EXPECT_DOUBLE_EQ(j.at("latency_ms").get<double>(), 4.1235);  // to 0.1 us
  // The keys in the order the file has always had them.
  EXPECT_EQ(line.rfind("{\"index\":3,\"stages\":{", 0), 0u) << line;
  EXPECT_LT(line.find("\"upload_ms\""), line.find("\"latency_ms\""));
}

}  // namespace
