// hist against cv::calcHist (per channel, 256 bins, range [0, 256)): histograms exactly equal.
#include <cstring>
#include <opencv2/imgproc.hpp>

#include "tests/test_engine_util.hpp"

using namespace vf;
using namespace vf::test;

namespace {

using Hist = std::vector<std::uint32_t>;

// cv::calcHist of every channel, concatenated: the layout the stage produces.
Hist referenceHist(const cv::Mat& in) {
  Hist all;
  for (int c = 0; c < in.channels(); ++c) {
    cv::Mat h;
    const int channel[] = {c};
    const int bins[] = {256};
    const float range[] = {0, 256};
    const float* ranges[] = {range};
    cv::calcHist(&in, 1, channel, cv::Mat(), h, 1, bins, ranges);
    for (int v = 0; v < 256; ++v) all.push_back(static_cast<std::uint32_t>(h.at<float>(v)));
  }
  return all;
}

Hist toHist(const std::vector<std::uint8_t>& bytes) {
  Hist h(bytes.size() / sizeof(std::uint32_t));
  std::memcpy(h.data(), bytes.data(), h.size() * sizeof(std::uint32_t));
  return h;
}

// Runs `chain` on `in` (twice over poisoned outputs, see runChecked), checks the frame came out
// unchanged when `unchanged`, and returns the histogram side output (the only one expected).
Hist runHist(Chain& chain, const cv::Mat& in, cv::Mat* out = nullptr, Facts facts = Facts::Device) {
  std::vector<std::vector<std::uint8_t>> side;
  const cv::Mat result = runChecked(chain, in, &side, facts);
  EXPECT_EQ(side.size(), 1u);
  if (out) *out = result;
  return side.empty() ? Hist{} : toHist(side[0]);
}

Hist runHist(const std::string& chainText, const cv::Mat& in, Facts facts = Facts::Device) {
  Chain chain = Chain::parse(chainText);
  cv::Mat out;
  const Hist h = runHist(chain, in, &out, facts);
  EXPECT_EQ(maxAbsDiff(out, in), 0) << chainText << ": the frame must pass through unchanged";
  return h;
}

// Schedules covering the serial CPU path (local=1), the local-atomic path at several
// work-group sizes, one group doing everything, more groups than there is work for, and
// several chunks loaded per step (unroll: the GPU default 4, and 3 so a step's last chunks run
// past the frame).
const std::vector<std::string>& schedules() {
  static const std::vector<std::string> s = {"hist",
                                             "hist=groups=1:local=1",
                                             "hist=groups=3:local=64",
                                             "hist=groups=64:local=256",
                                             "hist=groups=5:local=1:copies=1",
                                             "hist=groups=3:local=64:unroll=4",
                                             "hist=groups=7:local=32:unroll=3",
                                             "hist=groups=2:local=1:unroll=2"};
  return s;
}

// GPU variants: several sub-histograms per work-group, by lane (interleaved bins) or by warp.
const std::vector<std::string>& copySchedules() {
  static const std::vector<std::string> s = {"hist=groups=3:local=64:copies=32",
                                             "hist=groups=6:local=128:copies=8:spread=lane",
                                             "hist=groups=4:local=256:copies=4:spread=warp",
                                             "hist=groups=2:local=96:copies=3:spread=warp"};
  return s;
}

}  // namespace

TEST(HistStage, MatchesCalcHistOnRealFrames) {
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    const cv::Mat in = realFrame(30, type);
    const Hist ref = referenceHist(in);
    for (const auto& chain : schedules())
      EXPECT_EQ(runHist(chain, in), ref) << chain << " channels " << in.channels();
  }
}

// A GPU's default schedule (256 work-items sharing a sub-histogram through local atomics, one
// group per compute unit, 4 chunks loaded per step) on real frames and odd sizes.
TEST(HistStage, GpuDefaultScheduleMatchesCalcHist) {
  unsigned seed = 40;
  for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
    const cv::Mat in = realFrame(32, type);
    EXPECT_EQ(runHist("hist", in, Facts::Gpu), referenceHist(in)) << "channels " << in.channels();
    for (const auto& sz : oddSizes()) {
      const cv::Mat r = randomFrame(sz.width, sz.height, type, seed++);
      EXPECT_EQ(runHist("hist", r, Facts::Gpu), referenceHist(r)) << sz;
    }
  }
  Chain chain = Chain::parse("hist");
  runHist(chain, realFrame(32, CV_8UC1), nullptr, Facts::Gpu);
  const std::string s = chain.stage(0).schedule();
  EXPECT_NE(s.find("local=256"), std::string::npos) << s;
  EXPECT_NE(s.find("unroll=4"), std::string::npos) << s;
}

TEST(HistStage, CopyVariantsMatchCalcHistOnRealFrames) {
  // Every variant on bgr (three channels interleaved: the trickiest indexing), one each on gray
  // and bgra.
  for (int type : {CV_8UC3, CV_8UC1, CV_8UC4}) {
    const cv::Mat in = realFrame(35, type);
    const Hist ref = referenceHist(in);
    for (std::size_t k = 0; k < copySchedules().size(); ++k) {
      if (type != CV_8UC3 && k != (type == CV_8UC1 ? 0u : 3u)) continue;
      const std::string& chain = copySchedules()[k];
      EXPECT_EQ(runHist(chain, in), ref) << chain << " channels " << in.channels();
    }
  }
}

TEST(HistStage, MatchesCalcHistOnRandomOddSizes) {
  unsigned seed = 7;
  for (const auto& sz : oddSizes()) {
    for (int type : {CV_8UC1, CV_8UC3, CV_8UC4}) {
      const cv::Mat in = randomFrame(sz.width, sz.height, type, seed++);
      const Hist ref = referenceHist(in);
      for (const auto& chain :
           {"hist", "hist=groups=2:local=1", "hist=groups=9:local=128",
            "hist=groups=5:local=64:copies=16", "hist=groups=3:local=64:copies=2:spread=warp"})
        EXPECT_EQ(runHist(chain, in), ref) << chain << " " << sz << " channels " << in.channels();
    }
  }
}

TEST(HistStage, MatchesCalcHistOnARealFrameAtOddSizes) {
  for (const auto& sz : oddSizes()) {
    const cv::Mat in = realFrame(70, CV_8UC3, sz.width, sz.height);
    EXPECT_EQ(runHist("hist=local=32", in), referenceHist(in)) << sz;
  }
}

TEST(HistStage, SingleValueFillsOneBin) {
  for (const auto& sz : {cv::Size(1, 1), cv::Size(17, 13), cv::Size(640, 480)}) {
    const cv::Mat gray(sz, CV_8UC1, cv::Scalar(173));
    const Hist g = runHist("hist=local=64", gray);
    ASSERT_EQ(g.size(), 256u);
    for (int v = 0; v < 256; ++v)
      EXPECT_EQ(g[v], v == 173 ? std::uint32_t(sz.area()) : 0u) << sz << " bin " << v;

    const cv::Mat bgr(sz, CV_8UC3, cv::Scalar(10, 255, 0));
    const Hist h = runHist("hist", bgr);
    ASSERT_EQ(h.size(), 3u * 256);
    const int expected[] = {10, 255, 0};
    for (int c = 0; c < 3; ++c)
      for (int v = 0; v < 256; ++v)
        EXPECT_EQ(h[c * 256 + v], v == expected[c] ? std::uint32_t(sz.area()) : 0u)
            << sz << " channel " << c << " bin " << v;
  }
}

TEST(HistStage, FramePassesThroughUnchanged) {
  const cv::Mat in = realFrame(40, CV_8UC3);
  // hist between two stages changes nothing: hist,brightness equals brightness alone.
  for (const char* chain : {"hist,brightness=gain=2", "hist=local=64,brightness=gain=2"}) {
    const cv::Mat a = runChain(chain, in);
    const cv::Mat b = runChain("brightness=gain=2", in);
    EXPECT_EQ(maxAbsDiff(a, b), 0) << chain;
    cv::Mat ref;
    in.convertTo(ref, -1, 2, 0);
    EXPECT_LE(maxAbsDiff(a, ref), 1) << chain;
  }
  Chain chain = Chain::parse("hist");
  chain.configure(context(), viewOf(in).desc());
  EXPECT_TRUE(chain.stage(0).passthrough());
  EXPECT_EQ(chain.output(), chain.input());
}

TEST(HistStage, SeesTheFrameOfItsPlaceInTheChain) {
  // After a stage that changes the frame, hist counts the changed frame.
  const cv::Mat in = realFrame(20, CV_8UC3);
  Chain chain = Chain::parse("brightness=gain=1.5:bias=-20,hist");
  cv::Mat out;
  const Hist h = runHist(chain, in, &out);
  EXPECT_EQ(h, referenceHist(out));
  EXPECT_NE(h, referenceHist(in));
}

TEST(HistStage, CountsEachFrameFromZero) {
  const cv::Mat a = realFrame(5, CV_8UC3);
  const cv::Mat b = randomFrame(a.cols, a.rows, CV_8UC3, 123);
  for (const char* text : {"hist", "hist=groups=4:local=128"}) {
    Chain chain = Chain::parse(text);
    chain.configure(context(), viewOf(a).desc());
    EXPECT_EQ(runHist(chain, a), referenceHist(a)) << text;
    ASSERT_TRUE(chain.configured());
    EXPECT_EQ(runHist(chain, b), referenceHist(b)) << text << ": second frame";
    EXPECT_EQ(runHist(chain, a), referenceHist(a)) << text << ": third frame";
  }
}

TEST(HistStage, SideOutputReachesRunOncesCaller) {
  const cv::Mat in = realFrame(60, CV_8UC4);
  Chain chain = Chain::parse("brightness=gain=1.1,hist");
  chain.setFusion(
      Chain::Fusion::Off);  // the hist stage's own kernel (fused: tests/test_chain_fusion.cpp)
  chain.configure(context(), viewOf(in).desc());
  const auto outs = chain.sideOutputs();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].name, "histogram");
  EXPECT_EQ(outs[0].stage, 1);
  EXPECT_EQ(outs[0].bytes, 4u * 256 * sizeof(std::uint32_t));

  cv::Mat out = makeMat(chain.output());
  std::vector<std::vector<std::uint8_t>> side;
  const ChainRun run = chain.runOnce(context(), queue(), viewOf(in), viewOf(out), &side);
  ASSERT_EQ(side.size(), 1u);
  EXPECT_EQ(toHist(side[0]), referenceHist(out));
  // One command per frame: the counting kernel (which also clears the next frame's buffer).
  EXPECT_EQ(run.stages[1].first.getInfo<CL_EVENT_COMMAND_TYPE>(), CL_COMMAND_NDRANGE_KERNEL);
  EXPECT_EQ(run.stages[1].first(), run.stages[1].last());
}

// No clear command: the histogram is double-buffered and each launch zeroes the buffer the next
// frame counts into. Many frames enqueued back to back on one queue (nothing waits between
// them), each side output read back in queue order: every frame gets exactly its own histogram,
// not a sum with an earlier frame's.
TEST(HistStage, FramesInFlightEachGetTheirOwnHistogram) {
  const int frames = 9;
  for (int type : {CV_8UC1, CV_8UC3}) {
    std::vector<cv::Mat> in;
    for (int k = 0; k < frames; ++k) in.push_back(streamRealFrame(k, type, 320, 240));
    for (const char* text :
         {"hist", "hist=local=128:copies=32", "hist=groups=5:local=64:copies=4:spread=warp"}) {
      Chain chain = Chain::parse(text);
      chain.configure(context(), viewOf(in[0]).desc());
      std::vector<cl::Buffer> dIn;
      for (const auto& m : in) {
        dIn.emplace_back(context().context(), CL_MEM_READ_WRITE, m.total() * m.elemSize());
        queue().enqueueWriteBuffer(dIn.back(), CL_TRUE, 0, m.total() * m.elemSize(), m.data);
      }
      cl::Buffer dOut(context().context(), CL_MEM_READ_WRITE, in[0].total() * in[0].elemSize());
      std::vector<std::vector<std::vector<std::uint8_t>>> side(frames);
      for (int k = 0; k < frames; ++k) chain.enqueue(queue(), dIn[k], dOut, {}, &side[k]);
      queue().finish();
      for (int k = 0; k < frames; ++k) {
        ASSERT_EQ(side[k].size(), 1u);
        EXPECT_EQ(toHist(side[k][0]), referenceHist(in[k]))
            << text << " channels " << in[k].channels() << " frame " << k;
      }
    }
  }
}

// The same through the engine, several frames in flight: each frame reaches the sink with its
// own histogram.
TEST(HistStage, EngineDeliversEachFrameItsOwnHistogram) {
  const int frames = 24;
  for (int type : {CV_8UC1, CV_8UC3}) {
    for (const char* text : {"hist", "hist=groups=3:local=64:copies=8"}) {
      for (int slots : {1, 3, 4}) {
        SCOPED_TRACE(std::string(text) + " slots " + std::to_string(slots) + " channels " +
                     std::to_string(CV_MAT_CN(type)));
        const auto got = runRealStream(text, frames, type, 160, 120, slots);
        ASSERT_EQ(got.size(), std::size_t(frames));
        for (const auto& f : got) {
          ASSERT_EQ(f.side.size(), 1u);
          EXPECT_EQ(toHist(f.side[0]), referenceHist(streamRealFrame(int(f.index), type, 160, 120)))
              << "frame " << f.index;
        }
      }
    }
  }
}

TEST(HistStage, CopiesShrinkToWhatLocalMemoryHolds) {
  // 64 copies of a bgra histogram (256 KiB) do not fit: fewer are used, the result is exact.
  Chain chain = Chain::parse("hist=local=64:copies=64:spread=warp");
  chain.configure(context(), {64, 48, PixelFormat::BGRA8});
  const cv::Mat in = randomFrame(64, 48, CV_8UC4, 5);
  EXPECT_EQ(runHist(chain, in), referenceHist(in));
}

TEST(HistStage, BadScheduleIsAnError) {
  EXPECT_THROW(Chain::parse("hist=local=2000"), ChainError);
  EXPECT_THROW(Chain::parse("hist=groups=-1"), ChainError);
  if (context().info().maxWorkGroupSize < 1024) {
    Chain chain = Chain::parse("hist=local=1024");
    EXPECT_THROW(chain.configure(context(), {64, 64, PixelFormat::Gray8}), UserError);
  }
}
