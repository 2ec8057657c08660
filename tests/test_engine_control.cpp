// The streaming engine's control paths: stop() at every point, errors from the source, the
// chain and the sink, a source that blocks.

#include "pipeline/error.hpp"
#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;
using namespace std::chrono_literals;

namespace {

// A stage for failure tests: copies its input; throws ClError when enqueueing frame `failAt`,
// or UserError at configure for any input that is not gray (when grayOnly).
class FaultStage : public Stage {
 public:
  static const StageInfo& info() {
    static const StageInfo i{"fault", "test stage", "any -> same", {}, nullptr};
    return i;
  }
  FaultStage(int failAt, bool grayOnly) : Stage(info()), failAt_(failAt), grayOnly_(grayOnly) {}
  FrameDesc configure(StageContext&, const FrameDesc& in) override {
    if (grayOnly_ && in.format != PixelFormat::Gray8)
      throw UserError("fault: needs gray input, got " + std::string(formatName(in.format)));
    in_ = in;
    return in;
  }
  StageEvents enqueue(cl::CommandQueue& q, const cl::Buffer& in, const cl::Buffer& out,
                      const std::vector<cl::Event>& wait) override {
    if (count_++ == failAt_) throw ClError(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel(fault)");
    cl::Event e;
    q.enqueueCopyBuffer(in, out, 0, 0, in_.bytes(), &wait, &e);
    return {e, e};
  }

 private:
  int failAt_;
  bool grayOnly_;
  int count_ = 0;
  FrameDesc in_;
};

Chain faultChain(int failAt, bool grayOnly = false) {
  Chain c = Chain::parse("brightness=gain=1.2:bias=-10");
  c.add(std::make_unique<FaultStage>(failAt, grayOnly));
  return c;
}

void expectPrefix(const std::vector<CollectSink::Frame>& got) {
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].index, i) << "not a prefix";
}

TEST(EngineStop, BeforeRun) {
  TestSource source(StreamPlan::uniform(50, kSmall));
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2));
  engine.stop();
  {
    Watchdog dog(30s);
    engine.run(source, sink);
  }
  EXPECT_EQ(sink.consumed(), 0);
  EXPECT_EQ(sink.finishCalls(), 1);
  // The stop request was used up: the next run goes through.
  TestSource again(StreamPlan::uniform(20, kSmall));
  engine.run(again, sink);
  EXPECT_EQ(sink.consumed(), 20);
  EXPECT_EQ(sink.finishCalls(), 2);
}

TEST(EngineStop, BeforeTheFirstFrame) {
  TestSource source(StreamPlan::uniform(50, kSmall));
  source.blockAt = 0;  // the source has not produced anything yet
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2));
  std::thread stopper([&] {
    ASSERT_TRUE(source.waitBlocked(10s));
    engine.stop();
    // finish() comes while the source is still blocked; only then let it return.
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (sink.finishCalls() == 0 && std::chrono::steady_clock::now() < until) sleepUs(1000);
    source.release();
  });
  {
    Watchdog dog(30s);
    engine.run(source, sink);
  }
  stopper.join();
  EXPECT_EQ(sink.finishCalls(), 1);
  EXPECT_EQ(sink.consumed(), 0) << "a frame read after stop() is discarded";
  EXPECT_LE(source.produced(), 1);
}

TEST(EngineStop, MidStreamDeliversAPrefix) {
  for (int slots : {1, 2, 4}) {
    SCOPED_TRACE("slots " + std::to_string(slots));
    const StreamPlan plan = StreamPlan::uniform(2000, kSmall);
    TestSource source(plan);
    source.pace = [](int) { sleepUs(100); };
    CollectSink sink;
    Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(slots));
    std::thread stopper([&] {
      while (sink.consumed() < 50) sleepUs(200);
      engine.stop();
    });
    {
      Watchdog dog(30s);
      engine.run(source, sink);
    }
    stopper.join();
    const auto got = sink.frames();
    EXPECT_GE(got.size(), 50u);
    EXPECT_LT(got.size(), 2000u);
    expectPrefix(got);
    expectFramesCorrect(got, kChain, plan);
    EXPECT_EQ(sink.finishCalls(), 1);
    EXPECT_FALSE(sink.consumedAfterFinish());
    const EngineStats st = engine.stats();
    EXPECT_EQ(st.framesIn, st.framesOut) << "every frame taken in was delivered";
  }
}

// stop() while the source is inside next() with a filled slot: the engine has closed its input
// by the time next() returns, so that frame (already uploaded by the capture thread, offline)
// is discarded; its slot is taken back cleanly and the engine runs again correctly.
TEST(EngineStop, WhileAFrameIsBeingCapturedDiscardsIt) {
  for (Transfer transfer : {Transfer::Copy, Transfer::Map}) {
    SCOPED_TRACE(transferName(transfer));
    const StreamPlan plan = StreamPlan::uniform(100, kSmall);
    TestSource source(plan);
    CollectSink sink;
    Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2, transfer));
    source.afterFill = [&](int i) {
      if (i == 20) {
        engine.stop();
        std::this_thread::sleep_for(100ms);  // the submit thread closes the input meanwhile
      }
    };
    {
      Watchdog dog(30s);
      engine.run(source, sink);
    }
    EXPECT_EQ(sink.consumed(), 20);
    expectPrefix(sink.frames());
    EXPECT_EQ(engine.stats().framesIn, 20u);
    EXPECT_EQ(sink.finishCalls(), 1);
    TestSource again(plan);
    CollectSink sink2;
    {
      Watchdog dog(30s);
      engine.run(again, sink2);
    }
    EXPECT_EQ(expectFramesCorrect(sink2.frames(), kChain, plan), 100u);
  }
}

TEST(EngineStop, DuringDrainFinishesFramesInFlight) {
  const StreamPlan plan = StreamPlan::uniform(30, kSmall);
  TestSource source(plan);
  CollectSink sink;
  sink.delay = 5ms;  // frames pile up behind the sink
  // The last frames wait in the sink until stop() was called, so it comes while they are in
  // flight however the threads are scheduled: the source ends once frame 26's slot is free.
  std::atomic<bool> stopped{false};
  sink.onConsume = [&](const FrameResult& r) {
    if (r.stats.index < 27) return;
    while (!stopped.load()) sleepUs(200);
  };
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(4));
  std::thread stopper([&] {
    while (!source.ended()) sleepUs(200);
    engine.stop();  // frames 28 and 29 (at least) are still to be delivered
    stopped = true;
  });
  {
    Watchdog dog(30s);
    engine.run(source, sink);
  }
  stopper.join();
  const auto got = sink.frames();
  EXPECT_EQ(got.size(), 30u) << "stop() during the drain still delivers what was taken in";
  expectPrefix(got);
  expectFramesCorrect(got, kChain, plan);
  EXPECT_EQ(sink.finishCalls(), 1);
}

TEST(EngineStop, FromASinkThatWantsToStop) {
  TestSource source(StreamPlan::uniform(1000, kSmall));
  CollectSink sink;
  sink.wantsStopAfter = 30;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(3));
  {
    Watchdog dog(30s);
    engine.run(source, sink);
  }
  EXPECT_GE(sink.consumed(), 30);
  EXPECT_LE(sink.consumed(), 30 + 4);  // at most the frames already in the engine
  expectPrefix(sink.frames());
  EXPECT_EQ(sink.finishCalls(), 1);
}

TEST(EngineStop, FromASinkThatWantsToStopBeforeAnyFrame) {
  TestSource source(StreamPlan::uniform(10, kSmall));
  source.blockAt = 0;
  CollectSink sink;
  sink.wantsStopAfter = 0;  // e.g. the preview window closed before the camera delivered
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2));
  std::thread releaser([&] {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (sink.finishCalls() == 0 && std::chrono::steady_clock::now() < until) sleepUs(1000);
    source.release();
  });
  {
    Watchdog dog(30s);
    engine.run(source, sink);
  }
  releaser.join();
  EXPECT_EQ(sink.consumed(), 0);
  EXPECT_EQ(sink.finishCalls(), 1);
}

TEST(EngineStop, WhileTheSourceWaitsForASlot) {
  // Offline source, slow sink: the capture thread is blocked waiting for a free slot.
  TestSource source(StreamPlan::uniform(1000, kSmall));
  CollectSink sink;
  sink.delay = 20ms;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2));
  std::thread stopper([&] {
    while (sink.consumed() < 3) sleepUs(500);
    engine.stop();
  });
  {
    Watchdog dog(30s);
    engine.run(source, sink);
  }
  stopper.join();
  EXPECT_LE(sink.consumed(), 3 + 3);
  expectPrefix(sink.frames());
  EXPECT_EQ(sink.finishCalls(), 1);
}

TEST(EngineErrors, SourceErrorEndsTheInputAndWhatWasCapturedIsDelivered) {
  const StreamPlan plan = StreamPlan::uniform(100, kSmall);
  TestSource source(plan);
  source.throwAt = 20;
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(3));
  {
    Watchdog dog(30s);
    try {
      engine.run(source, sink);
      ADD_FAILURE() << "run() did not rethrow the source's error";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "test source failed at frame 20");
    }
  }
  // Frames captured before the error are still delivered.
  EXPECT_EQ(expectFramesCorrect(sink.frames(), kChain, plan), 20u);
  expectPrefix(sink.frames());
  EXPECT_EQ(sink.finishCalls(), 1);
}

TEST(EngineErrors, SourceReturningAFrameWithoutASlotIsAnError) {
  TestSource source(StreamPlan::uniform(100, kSmall));
  source.noSlotAt = 5;
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2));
  Watchdog dog(30s);
  EXPECT_THROW(engine.run(source, sink), std::logic_error);
  EXPECT_EQ(sink.finishCalls(), 1);
}

TEST(EngineErrors, SinkErrorStopsDeliveryAtOnce) {
  for (int slots : {1, 3}) {
    TestSource source(StreamPlan::uniform(200, kSmall));
    CollectSink sink;
    sink.throwAt = 20;
    Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(slots));
    {
      Watchdog dog(30s);
      try {
        engine.run(source, sink);
        ADD_FAILURE() << "run() did not rethrow the sink's error";
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "test sink failed at frame 20");
      }
    }
    EXPECT_EQ(sink.consumed(), 21) << "no consume() after the sink failed";
    EXPECT_EQ(sink.finishCalls(), 1);
  }
}

TEST(EngineErrors, ChainEnqueueFailureAbortsAndTheEngineRunsAgain) {
  for (Transfer transfer : {Transfer::Copy, Transfer::Map}) {
    SCOPED_TRACE(transferName(transfer));
    const StreamPlan plan = StreamPlan::uniform(200, kSmall);
    TestSource source(plan);
    CollectSink sink;
    Engine engine(sharedContext(), faultChain(30), engineOptions(3, transfer));
    {
      Watchdog dog(30s);
      try {
        engine.run(source, sink);
        ADD_FAILURE() << "run() did not rethrow the chain's error";
      } catch (const ClError& e) {
        EXPECT_EQ(e.code(), CL_OUT_OF_RESOURCES);
      }
    }
    EXPECT_LE(sink.consumed(), 30);
    expectPrefix(sink.frames());
    EXPECT_EQ(sink.finishCalls(), 1);
    // The slots are usable again: a second run (the stage fails only once) is complete.
    TestSource again(plan);
    CollectSink sink2;
    {
      Watchdog dog(30s);
      engine.run(again, sink2);
    }
    const auto got = sink2.frames();
    ASSERT_EQ(got.size(), 200u);
    for (const auto& f : got) {
      // faultChain = brightness, then a copy.
      ASSERT_EQ(
          maxAbsDiff(f.output, referenceOutput("brightness=gain=1.2:bias=-10", f.index, kSmall)), 0)
          << "frame " << f.index;
    }
  }
}

TEST(EngineErrors, ReconfigureToAnUnsupportedFormatFails) {
  const StreamPlan plan{{{10, {32, 24, PixelFormat::Gray8}}, {10, {32, 24, PixelFormat::BGR8}}}};
  TestSource source(plan);
  CollectSink sink;
  Engine engine(sharedContext(), faultChain(-1, /*grayOnly=*/true), engineOptions(2));
  {
    Watchdog dog(30s);
    EXPECT_THROW(engine.run(source, sink), UserError);
  }
  EXPECT_EQ(sink.consumed(), 10) << "the gray frames before the change were delivered";
  EXPECT_EQ(sink.finishCalls(), 1);
}

TEST(EngineErrors, FinishErrorIsRethrown) {
  struct FinishThrows : CollectSink {
    void finish() override {
      CollectSink::finish();
      throw std::runtime_error("finish failed");
    }
  };
  TestSource source(StreamPlan::uniform(10, kSmall));
  FinishThrows sink;
  Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2));
  Watchdog dog(30s);
  EXPECT_THROW(engine.run(source, sink), std::runtime_error);
  EXPECT_EQ(sink.consumed(), 10);
  EXPECT_EQ(sink.finishCalls(), 1);
}

// failed() says, in finish(), whether run() is about to rethrow: a source's error, a sink's; a
// clean end or a stop is not a failure.
TEST(EngineErrors, FailedIsKnownInFinish) {
  struct Recorder : CollectSink {
    Engine* engine = nullptr;
    bool failedInFinish = false;
    void finish() override {
      failedInFinish = engine->failed();
      CollectSink::finish();
    }
  };
  for (int scenario = 0; scenario < 4; ++scenario) {
    SCOPED_TRACE(scenario);
    TestSource source(StreamPlan::uniform(40, kSmall));
    if (scenario == 1) source.throwAt = 10;
    Recorder sink;
    if (scenario == 2) sink.throwAt = 10;
    if (scenario == 3) sink.wantsStopAfter = 5;
    Engine engine(sharedContext(), Chain::parse(kChain), engineOptions(2));
    sink.engine = &engine;
    EXPECT_FALSE(engine.failed());
    Watchdog dog(30s);
    const bool threw = [&] {
      try {
        engine.run(source, sink);
      } catch (const std::runtime_error&) {
        return true;
      }
      return false;
    }();
    EXPECT_EQ(threw, scenario == 1 || scenario == 2);
    EXPECT_EQ(sink.failedInFinish, threw);
    EXPECT_FALSE(engine.failed()) << "cleared when run() returns";
  }
}

TEST(EngineErrors, BadOptionsAreUserErrors) {
  EXPECT_THROW(Engine(sharedContext(), Chain::parse(kChain), engineOptions(0)), UserError);
  EXPECT_THROW(Engine(sharedContext(), Chain::parse(kChain), engineOptions(9)), UserError);
  TestSource source(StreamPlan::uniform(10, kSmall));
  CollectSink sink;
  Engine engine(sharedContext(), Chain::parse(kChain),
                engineOptions(2, Transfer::Auto, -1, "/nonexistent-dir/stats.jsonl"));
  // The app checks the directory first (a usage error); a stats file the OS then refuses is a
  // runtime failure with its reason.
  try {
    engine.run(source, sink);
    ADD_FAILURE() << "no error for a stats file that cannot be created";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(sink.finishCalls(), 1);
}

}  // namespace
