// The streaming engine's statistics: the --stats file (one JSON line per frame, every frame
// even when the stages are timed on fewer), the rolling statistics of a run, a fused pass
// timed as one, timing one frame in N, and the statistics' arithmetic (the run's rate,
// nearest-rank percentiles, JSON escaping).
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "pipeline/engine_stats.hpp"
#include "pipeline/text_file.hpp"
#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;
using namespace std::chrono_literals;

namespace {

// The stats file is written as a run goes: lines held for a second are on disk at the next
// line (tail -f follows a run; a killed run loses at most that), not only at the close.
TEST(Engine, StatsLinesReachTheFileWithinASecond) {
  const std::string path = ::testing::TempDir() + "/text_file_" +
                           std::to_string(reinterpret_cast<std::uintptr_t>(&path)) + ".jsonl";
  const auto onDisk = [&] {
    std::ifstream in(path);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return all;
  };
  TextFile f;
  f.open(path, "the stats file");
  f.writeLine("{\"frame\":0}");
  f.writeLine("{\"frame\":1}");
  EXPECT_EQ(onDisk(), "") << "held, as a buffer should be, for less than a second";
  std::this_thread::sleep_for(1100ms);
  f.writeLine("{\"frame\":2}");
  EXPECT_EQ(onDisk(), "{\"frame\":0}\n{\"frame\":1}\n{\"frame\":2}\n");
  f.writeLine("{\"frame\":3}");
  f.close();
  EXPECT_EQ(onDisk(), "{\"frame\":0}\n{\"frame\":1}\n{\"frame\":2}\n{\"frame\":3}\n");
  std::remove(path.c_str());
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

// The run's rate counts every frame from the first out to the last, not the window's last few,
// and stays put once frames stop (the preview shows it at the end of the input): five frames 20
// ms apart and five at once make at most 9 / 0.08 s frames a second, whatever the window says.
TEST(EngineStatsMath, RunFpsIsTheWholeRunsAndStaysAfterTheEnd) {
  RollingStats stats(4);
  stats.start({"gray"});
  EXPECT_EQ(stats.snapshot().runFps, 0.0);
  for (int i = 0; i < 10; ++i) {
    if (i > 0 && i < 5) std::this_thread::sleep_for(20ms);
    stats.add(FrameStats{});
  }
  const EngineStats a = stats.snapshot();
  EXPECT_EQ(a.framesOut, 10u);
  EXPECT_GT(a.runFps, 0.0);
  EXPECT_LE(a.runFps, 9 / 0.08);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(stats.snapshot().runFps, a.runFps);
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
